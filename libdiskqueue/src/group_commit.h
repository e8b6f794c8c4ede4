#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "queue_log.h"
#include "queue_state.h"
#include "segment_writer.h"

namespace nsq::diskqueue {

// Blocking puts with group commit. A put appends its records to the open
// batch (a copy under state.mu) and waits on the batch's state word
// (std::atomic::wait, a futex). Two roles do the I/O, each held by at most
// one caller at a time and taken by whichever waiting caller sees it free
// with work behind it:
//   - the writer takes the open batch (new puts start a new one) and writes
//     it with SegmentWriter, one pwrite;
//   - the syncer fdatasyncs every batch written so far that asked for
//     durability, with one fdatasync.
// So group N+1 is appended and written while group N's fsync runs, and one
// fsync covers every group written meanwhile. Finishing a batch wakes all
// its callers with one futex call; they learn the outcome from the batch
// without taking state.mu, so the wake-up herd does not queue on the mutex.
// A role holder that is done with its own put hands the role on (to the
// open batch, or to the oldest batch waiting for an fsync) instead of
// working for others indefinitely.
//
// The writer role is also what serialises every other change to the files
// (empty, close, a bad segment: take_writer_role). Thread-safe; its state is
// guarded by state.mu. The references must outlive it.
class GroupCommit {
 public:
  GroupCommit(QueueState& state, SegmentWriter& writer, const QueueLog& log);
  ~GroupCommit();

  // Appends `records` and returns once they are written, or fsynced too
  // when `durable`; the caller meanwhile does I/O for others when a role is
  // free. errc::exiting once the queue closed.
  std::error_code append_and_wait(std::span<const std::string_view> records, bool durable);

  // Writes `records` (`bytes` framed) on this thread when the writer role
  // is free, nothing is appended and the write needs no roll or zero fill;
  // else errc::busy and nothing is written.
  std::error_code try_write(std::span<const std::string_view> records, std::int64_t bytes);

  // With `lock` on state.mu: takes the writer role ahead of new puts and
  // finishes every put appended so far, fsyncs included. The caller then
  // changes the files alone until release_writer_role.
  void take_writer_role(std::unique_lock<std::mutex>& lock);
  void release_writer_role(std::unique_lock<std::mutex>& lock);

 private:
  struct Batch;  // records appended together, written with one pwrite

  void drive(std::unique_lock<std::mutex>& lock, Batch& mine, std::uint32_t need);
  void write_batches(std::unique_lock<std::mutex>& lock, const Batch& mine, std::uint32_t need);
  void write_open_batch(std::unique_lock<std::mutex>& lock);
  void sync_batches(std::unique_lock<std::mutex>& lock);
  void hand_on_syncer_role_locked();

  QueueState& state_;
  SegmentWriter& writer_;
  const QueueLog& log_;

  // Guarded by state_.mu.
  std::shared_ptr<Batch> open_;                  // takes new records
  std::deque<std::shared_ptr<Batch>> unsynced_;  // written, waiting for an fsync
  std::int64_t unsynced_records_ = 0;
  bool writing_ = false;                // writer role taken
  bool syncing_ = false;                // syncer role taken
  int control_waiting_ = 0;             // take_writer_role callers waiting
  std::condition_variable control_cv_;  // waits on state_.mu: a role was freed
  bool gathering_ = false;              // the syncer waits for more batches
  std::condition_variable gather_cv_;   // waits on state_.mu: a batch arrived
  std::int64_t last_sync_records_ = 0;  // recent largest fsync group (decays)
  std::int64_t released_ = 0;           // durable callers the last fsync released
  std::int64_t durable_arrivals_ = 0;   // durable callers appended since then
  std::chrono::microseconds last_fsync_time_{0};
  std::string spare_;  // a written batch's buffer, for reuse
};

}  // namespace nsq::diskqueue
