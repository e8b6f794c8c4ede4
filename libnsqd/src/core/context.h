#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "core/disk_writer.h"
#include "diskqueue/disk_queue.h"
#include "diskqueue/timer_thread.h"
#include "nsqd/options.h"

namespace spdlog {
class logger;
}

namespace nsq::nsqd {

class WorkerPool;
using Clock = std::chrono::steady_clock;
using ClientId = std::uint64_t;

// Runs `on_release` when the last copy is gone: captured in a DiskWrite's
// `done`, it keeps a write counted as pending until the write was performed
// or dropped, so shutdown can wait for every write in flight.
class PendingToken {
 public:
  explicit PendingToken(std::function<void()> on_release) : on_release_(std::move(on_release)) {}
  ~PendingToken() {
    if (on_release_) on_release_();
  }
  PendingToken(const PendingToken&) = delete;
  PendingToken& operator=(const PendingToken&) = delete;

 private:
  std::function<void()> on_release_;
};

// What topics and channels share, owned by the Broker and outliving them all.
struct QueueContext {
  const Options& options;
  spdlog::logger& log;
  WorkerPool& disk_pool;              // blocking disk reads
  DiskWriter& disk_writer;            // every write
  diskqueue::TimerThread& deadlines;  // in-flight and deferred deadlines (a thread of their own)
  // Opens the disk queue of a topic ("t") or channel ("t:c").
  std::function<std::shared_ptr<diskqueue::DiskQueue>(const std::string& queue_name)> open_backend;
  // Topology (non-ephemeral topics, channels, paused flags) changed: nsqd.dat is due.
  std::function<void()> topology_changed;
  // A topic (channel "") or channel was created (true) or deleted: lookupd is told.
  std::function<void(bool, const std::string&, const std::string&)> registration_changed;
  // Publishes a channel's dead letters (bodies) to `topic`; `done` once they
  // are written (with --sync-publish, fsynced), or failed. Any thread, no
  // lock of the caller's held.
  std::function<void(const std::string& topic, std::vector<std::string> bodies,
                     std::function<void(std::error_code)> done)>
      dead_letter;
};

// Current time in Unix nanoseconds (message timestamps).
std::int64_t unix_nanos();

}  // namespace nsq::nsqd
