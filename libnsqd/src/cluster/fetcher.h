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

#include "cluster/fetch_stream.h"
#include "cluster/replication_wire.h"

namespace nsq::nsqd::cluster {

class Replicator;

// A follower's pull from one leader node (docs/replication.md, "The data
// path"): a thread that asks the leader (CLUSTER_FETCH on its TCP port,
// FetchStream) for the records of every topic this node follows there, hands each answer to the
// Replicator, which writes it, and fsyncs what was written. Each round it sends its next fetch
// before it fsyncs, so the leader holds a request to answer the moment records come, and the answer
// is waiting when the fsync ends; then it confirms the fsync on a connection of its own without
// waiting for that answer. What is fsynced is what commits a publish. After a failed fsync it stops
// asking (the leader drops this node from the in-sync set) until it has cut the logs back to what
// was fsynced; then it catches up from there.
//
// Thread safety: request_stop() and finished() from any thread; the destructor stops the thread
// (waiting for at most one request: call request_stop() first and destroy it once finished() to
// wait for nothing).
class Fetcher {
 public:
  struct Settings {
    std::string node_id;
    std::string leader_id;  // host:port of its TCP port
    std::uint32_t wait_ms = 500;
    std::uint32_t max_bytes = 1 << 20;
    std::chrono::milliseconds connect_timeout{1000};
  };

  Fetcher(Replicator& replicator, Settings settings, std::shared_ptr<spdlog::logger> log);
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  // Asks the thread to end after its current request, without waiting.
  void request_stop();
  // The thread has ended.
  bool finished() const { return finished_.load(std::memory_order_acquire); }

 private:
  void run();
  // One round: ask, fsync and confirm what the last answer brought, take
  // the answer. False when it failed (the loop waits a little).
  bool round();
  // Fsyncs what was written and confirms it; false when an fsync failed.
  bool sync_and_confirm();
  // After a failed fsync: the logs cut back to what is durable (true: the
  // thread asks again from there).
  bool recover();
  // Sends `request` on `stream`, with the wait and bounds it asks for.
  tl::expected<void, std::string> send(FetchStream& stream, const wire::FetchRequest& request);
  wire::FetchRequest fetch_request(std::uint32_t max_bytes) const;
  void log_failure(const std::string& error);
  bool stopping() const;

  Replicator& replicator_;
  const Settings settings_;
  const std::shared_ptr<spdlog::logger> log_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::atomic<bool> finished_{false};

  // The thread's own.
  std::string last_error_;     // each distinct failure logged once
  bool written_ = false;       // records written since the last fsync
  bool sync_failed_ = false;   // until recover() has cut the logs back
  FetchStream connection_;     // fetches
  FetchStream confirmations_;  // confirmations, answers read one late

  std::thread thread_;
};

}  // namespace nsq::nsqd::cluster
