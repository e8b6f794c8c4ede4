#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/logger.h>

#include "cluster/replication_wire.h"
#include "nsq/http/client.h"

namespace nsq::nsqd::cluster {

class Replicator;

// A follower's pull from one leader node (docs/replication.md, "The data
// path"): a thread that asks the leader's POST /cluster/fetch for every
// topic this node follows there and hands each answer to the Replicator,
// which writes it; a second thread fsyncs what was written and confirms it
// to the leader at once on a connection of its own. The fetch thread asks
// again at once, so the leader holds a request to answer the moment records
// come, also while an fsync runs; what is fsynced is what commits a
// publish. After a failed fsync the fetch thread stops asking (the leader
// drops this node from the in-sync set) until it has cut the logs back to
// what was fsynced; then it catches up from there.
//
// Thread safety: set_address(), request_stop() and finished() from any
// thread; the destructor stops the threads (waiting for at most one request
// each: call request_stop() first and destroy it once finished() to wait for
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
  // Both threads have ended.
  bool finished() const { return running_.load(std::memory_order_acquire) == 0; }

 private:
  void run();
  // One request; false when it failed (the loop waits a little).
  bool fetch_once();
  void sync_loop();
  // Asks the syncer to fsync what is written now.
  void want_sync();
  // Tells the leader what is fsynced now (a request without records).
  void confirm();
  // After a failed fsync: the logs cut back to what is durable (true: the
  // fetch thread asks again from there).
  bool recover();
  // `request` as an HTTP request to the leader.
  tl::expected<http::ClientRequest, std::string> to_http(const wire::FetchRequest& request);
  // POSTs `request` to the leader on `connection`.
  tl::expected<std::vector<wire::FetchAnswer>, std::string> exchange(
      http::KeptConnection& connection, const wire::FetchRequest& request);

  Replicator& replicator_;
  Settings settings_;  // leader_http guarded by mu_
  const std::shared_ptr<spdlog::logger> log_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;            // guarded by mu_
  std::string last_error_;           // the fetch thread's: each distinct failure logged once
  http::KeptConnection connection_;  // the fetch thread's
  http::KeptConnection confirm_connection_;  // the syncer's
  std::atomic<int> running_{2};

  // Guarded by mu_.
  std::condition_variable sync_cv_;
  bool sync_wanted_ = false;
  bool sync_failed_ = false;  // until recover() has cut the logs back

  std::thread syncer_;
  std::thread thread_;
};

}  // namespace nsq::nsqd::cluster
