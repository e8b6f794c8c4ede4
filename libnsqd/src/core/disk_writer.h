#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "diskqueue/disk_queue.h"

namespace nsq::nsqd {

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

// The one way records reach disk queues: TCP and HTTP publishes, REQ, the
// topic-to-channel hop and deadline spills all write through here, and every
// result reaches the broker's health (GET /ping answers NOK after a failure).
// The place replication will hook in: an acknowledged write is one that
// completed here.
//
// Thread safety: every member may be called from any thread.
class DiskWriter {
 public:
  using Done = std::function<void(std::error_code)>;

  // `report` receives the result of every call that wrote something (its
  // first error, or none).
  explicit DiskWriter(std::function<void(std::error_code)> report) : report_(std::move(report)) {}

  // Without blocking the caller on the disk. A small non-durable write a
  // queue can take at once (to the page cache, nothing else writing) is done
  // here, on the calling thread; the rest goes through each queue's async
  // puts (concurrent durable writers share fsyncs). Returns the first error
  // when everything was written here (`done` is not called); nullopt when
  // `done` runs later, on a disk thread, with the first error.
  std::optional<std::error_code> submit(DiskWrites writes, Done done);

  // As submit(), but nothing is written on the calling thread (a thread that
  // must not stall, such as the deadline timer).
  void submit_async(DiskWrites writes, Done done);

  // Blocking, for work that already runs on a disk thread; the first error.
  std::error_code write(DiskWrites& writes);

 private:
  // The async puts of every queue; `done` once all finished, with the first error.
  void write_async(DiskWrites writes, Done done);
  void report(std::error_code ec) const {
    if (report_) report_(ec);
  }

  const std::function<void(std::error_code)> report_;
};

}  // namespace nsq::nsqd
