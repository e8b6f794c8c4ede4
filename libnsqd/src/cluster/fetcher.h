#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <spdlog/logger.h>

#include "nsq/http/client.h"

namespace nsq::nsqd::cluster {

class Replicator;

// A follower's pull from one leader node (docs/replication.md, "The data
// path"): a thread that asks the leader's POST /cluster/fetch for every
// topic this node follows there and hands each answer to the Replicator,
// which writes it; a second thread fsyncs what was written. The fetch
// thread asks again at once while records come, so the next batch travels
// while the last one is fsynced; each request says what is fsynced, which
// is what commits a publish. With nothing new and an fsync running, it
// asks with no wait, then waits for the fsync, so that its confirmation
// goes out as soon as it is true.
//
// Thread safety: set_address(), request_stop() and finished() from any
// thread; the destructor stops the threads (waiting for at most one request:
// call request_stop() first and destroy it once finished() to wait for
// nothing).
class Fetcher {
 public:
  struct Settings {
    std::string node_id;
    std::string leader_id;
    std::string leader_http;  // host:port
    std::uint32_t wait_ms = 500;
    std::uint32_t max_bytes = 1 << 20;
    std::chrono::milliseconds connect_timeout{1000};
  };

  Fetcher(Replicator& replicator, Settings settings, std::shared_ptr<spdlog::logger> log);
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  // The leader's HTTP address changed (a restart on another port).
  void set_address(const std::string& leader_http);
  // Asks the thread to end after its current request, without waiting.
  void request_stop();
  // The thread has ended.
  bool finished() const { return finished_.load(std::memory_order_acquire); }

 private:
  enum class Fetched { records, nothing, failed };

  void run();
  // One request; failed: the loop waits a little.
  Fetched fetch_once();
  void sync_loop();
  // Asks the syncer to fsync what is written now.
  void want_sync();
  // Waits until no fsync is asked for or running; false when one failed.
  bool await_sync();

  Replicator& replicator_;
  Settings settings_;  // leader_http guarded by mu_
  const std::shared_ptr<spdlog::logger> log_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;            // guarded by mu_
  std::string last_error_;           // the thread's own: each distinct failure logged once
  http::KeptConnection connection_;  // the fetch thread's
  std::atomic<bool> finished_{false};

  // The syncer's state, guarded by mu_.
  std::condition_variable sync_cv_;
  bool sync_wanted_ = false;
  bool syncing_ = false;
  bool sync_failed_ = false;  // the last fsync failed (cleared when read)

  std::thread syncer_;
  std::thread thread_;
};

}  // namespace nsq::nsqd::cluster
