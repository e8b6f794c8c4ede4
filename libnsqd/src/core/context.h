#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "diskqueue/disk_queue.h"
#include "diskqueue/sync_scheduler.h"
#include "nsqd/options.h"

namespace spdlog {
class logger;
}

namespace nsq::nsqd {

class WorkerPool;
using Clock = std::chrono::steady_clock;
using ClientId = std::uint64_t;

// Records bound for a disk queue. Topics and channels hand these out instead
// of writing, so the caller decides which thread blocks on the disk.
struct DiskWrite {
  std::shared_ptr<diskqueue::DiskQueue> queue;
  std::vector<std::string> records;
  std::function<void(std::error_code)> done;  // after the write, on the writing thread
  // fsync: the write returns once the records are fsynced (--sync-publish).
  diskqueue::Durability durability = diskqueue::Durability::written;
};
using DiskWrites = std::vector<DiskWrite>;

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

// Performs the writes (blocking); returns the first error.
std::error_code perform_disk_writes(DiskWrites& writes);

// Performs, on the calling thread, the small writes a queue can take at once
// (DiskQueue::try_put_batch: not durable, nothing else writing), running
// their `done`, and removes them from `writes`; the others stay. Returns the
// first error.
std::error_code perform_disk_writes_now(DiskWrites& writes);

// Performs the writes without blocking the caller (DiskQueue::put_batch_async):
// each write's `done`, then `done` with the first error, run on a disk-pool
// thread once every write finished.
void perform_disk_writes_async(DiskWrites writes, std::function<void(std::error_code)> done);

// What topics and channels share, owned by the Broker and outliving them all.
struct QueueContext {
  const Options& options;
  spdlog::logger& log;
  WorkerPool& disk_pool;                   // blocking disk work
  diskqueue::SyncScheduler& deadlines;     // in-flight and deferred deadlines
  std::function<void(std::error_code)> report_disk_error;  // health
  // Opens the disk queue of a topic ("t") or channel ("t:c").
  std::function<std::shared_ptr<diskqueue::DiskQueue>(const std::string& queue_name)> open_backend;
  // Topology (non-ephemeral topics, channels, paused flags) changed: nsqd.dat is due.
  std::function<void()> topology_changed;
  // A topic (channel "") or channel was created (true) or deleted: lookupd is told.
  std::function<void(bool, const std::string&, const std::string&)> registration_changed;
};

// Current time in Unix nanoseconds (message timestamps).
std::int64_t unix_nanos();

}  // namespace nsq::nsqd
