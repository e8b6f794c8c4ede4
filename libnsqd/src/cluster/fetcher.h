#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <spdlog/logger.h>

namespace nsq::nsqd::cluster {

class Replicator;

// A follower's pull from one leader node (docs/replication.md, "The data
// path"): a thread that asks the leader's POST /cluster/fetch for every
// topic this node follows there, hands each answer to the Replicator (which
// writes and fsyncs it), and asks again at once, so its next request
// confirms what the last one brought.
//
// Thread safety: set_address(), request_stop() and finished() from any
// thread; the destructor stops the thread (waiting for at most one request:
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
  void run();
  // One request; false when it failed (then the loop waits a little).
  bool fetch_once();

  Replicator& replicator_;
  Settings settings_;  // leader_http guarded by mu_
  const std::shared_ptr<spdlog::logger> log_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;   // guarded by mu_
  std::string last_error_;  // the thread's own: each distinct failure logged once
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

}  // namespace nsq::nsqd::cluster
