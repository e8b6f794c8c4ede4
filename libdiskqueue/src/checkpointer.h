#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <system_error>

#include "diskqueue/disk_queue.h"
#include "queue_files.h"
#include "queue_log.h"
#include "queue_state.h"

namespace nsq::diskqueue {

// Writes the checkpoint: fdatasync of the write segment, then the meta file
// (written atomically) with the positions seen before the fsync. Counts the
// puts and reads since the last one and runs the next on the TimerThread
// after Options::sync_every of them or sync_timeout after the first. With
// manual_read_commit it also deletes the segments the committed position
// has left, once the meta file no longer names them.
//
// Thread-safe. `state`, `files` and `log` must outlive it; cancel_scheduled()
// must run before it is destroyed.
class Checkpointer {
 public:
  Checkpointer(const Options& options, const QueueFiles& files, const QueueLog& log,
               QueueState& state, std::shared_ptr<TimerThread> scheduler);

  // After recovery: segments below `delete_from` are gone; `unsynced`: the
  // files changed since the meta file was written (a checkpoint is due).
  void start(std::int64_t delete_from, bool unsynced);

  // Serialises checkpoints with each other and with operations that delete
  // or replace files (empty, a bad segment, a segment roll, close), so that
  // a late checkpoint never describes files that are gone.
  [[nodiscard]] std::unique_lock<std::mutex> lock() { return std::unique_lock(mu_); }

  std::error_code checkpoint();         // takes lock()
  std::error_code checkpoint_locked();  // lock() held, state.mu not held

  // With lock() held: the segments below `file_num` were deleted or are
  // about to be (empty, corrupt positions), so none is left to delete.
  void set_delete_from(std::int64_t file_num) { delete_from_ = file_num; }

  // state.mu held: `n` more puts or read commits since the checkpoint.
  void count_ops_locked(std::int64_t n);
  // state.mu held: a checkpoint soon, on the scheduler's thread.
  void request_locked();

  // Drops the scheduled checkpoints (close, destruction); waits for one
  // that is running.
  void cancel_scheduled();

 private:
  void arm_timer_locked();  // state.mu held

  const Options& options_;
  const QueueFiles& files_;
  const QueueLog& log_;
  QueueState& state_;
  const std::shared_ptr<TimerThread> scheduler_;

  std::mutex mu_;                 // see lock()
  std::minstd_rand tmp_rand_;     // guarded by mu_: the meta file's temporary name
  std::int64_t delete_from_ = 0;  // guarded by mu_: first segment not yet deleted

  // Guarded by state_.mu.
  std::int64_t unsynced_ops_ = 0;  // puts and commits the meta file does not count
  bool timer_armed_ = false;       // sync_timeout checkpoint scheduled
  bool requested_ = false;         // immediate checkpoint scheduled
  TimerThread::TaskId timer_id_ = 0;
  TimerThread::TaskId request_id_ = 0;
};

}  // namespace nsq::diskqueue
