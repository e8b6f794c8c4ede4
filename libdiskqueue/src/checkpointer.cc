#include "checkpointer.h"

#include <unistd.h>

#include <algorithm>

#include "diskqueue/atomic_file.h"
#include "file_io.h"
#include "meta_file.h"

namespace nsq::diskqueue {

Checkpointer::Checkpointer(const Options& options, const QueueFiles& files, const QueueLog& log,
                           QueueState& state, std::shared_ptr<TimerThread> scheduler)
    : options_(options),
      files_(files),
      log_(log),
      state_(state),
      scheduler_(std::move(scheduler)),
      tmp_rand_(std::random_device{}()) {}

void Checkpointer::start(std::int64_t delete_from, bool unsynced) {
  {
    std::lock_guard meta_lock(mu_);
    delete_from_ = delete_from;
  }
  if (!unsynced) return;
  std::lock_guard lock(state_.mu);
  unsynced_ops_ = 1;
  arm_timer_locked();
}

std::error_code Checkpointer::checkpoint() {
  std::lock_guard meta_lock(mu_);
  return checkpoint_locked();
}

// The meta file names the committed read position (the read position unless
// manual_read_commit) and counts every record a reopen would deliver.
std::error_code Checkpointer::checkpoint_locked() {
  meta_file::Meta meta;
  std::shared_ptr<OpenSegment> file;
  std::int64_t counted;
  {
    std::lock_guard lock(state_.mu);
    if (state_.closed) return make_error_code(errc::exiting);
    const ReadCommits& commits = state_.commits;
    if (commits.manual()) {
      meta = {state_.depth + commits.uncommitted(), commits.file_num(), commits.pos(),
              state_.write_file_num, state_.write_pos};
    } else {
      meta = {state_.depth, state_.read_file_num, state_.read_pos, state_.write_file_num,
              state_.write_pos};
    }
    file = state_.write_file;
    counted = unsynced_ops_;
  }
  if (file && ::fdatasync(file->fd) != 0) {
    std::error_code ec = file_io::errno_code();
    log_(LogLevel::error, "failed to sync " + file->path + " - " + ec.message());
    return ec;
  }
  std::error_code ec = write_file_atomic(files_.meta_path(), meta_file::format(meta), tmp_rand_());
  if (ec) {
    log_(LogLevel::error,
         "failed to write metadata " + files_.meta_path().string() + " - " + ec.message());
    return ec;
  }
  // Segments wholly behind the committed position go only now that the
  // meta file no longer names them, so a crash can never point at a file
  // that is gone.
  if (state_.commits.manual()) {
    for (; delete_from_ < meta.read_file_num; ++delete_from_) {
      ::unlink(files_.segment_path(delete_from_).c_str());
    }
  }
  std::lock_guard lock(state_.mu);
  unsynced_ops_ = std::max<std::int64_t>(0, unsynced_ops_ - counted);
  return {};
}

void Checkpointer::count_ops_locked(std::int64_t n) {
  unsynced_ops_ += n;
  if (!timer_armed_) arm_timer_locked();
  if (options_.sync_every > 1 && unsynced_ops_ >= options_.sync_every) request_locked();
}

void Checkpointer::arm_timer_locked() {
  if (state_.closed || timer_armed_ || options_.sync_timeout.count() <= 0) return;
  timer_armed_ = true;
  timer_id_ = scheduler_->schedule(TimerThread::Clock::now() + options_.sync_timeout, [this] {
    {
      std::lock_guard lock(state_.mu);
      timer_armed_ = false;
      if (state_.closed || unsynced_ops_ == 0) return;
    }
    checkpoint();
  });
}

void Checkpointer::request_locked() {
  if (state_.closed || requested_) return;
  requested_ = true;
  request_id_ = scheduler_->schedule(TimerThread::Clock::now(), [this] {
    {
      std::lock_guard lock(state_.mu);
      requested_ = false;
      if (state_.closed) return;
    }
    checkpoint();
  });
}

void Checkpointer::cancel_scheduled() {
  TimerThread::TaskId ids[2];
  {
    std::lock_guard lock(state_.mu);
    ids[0] = timer_id_;
    ids[1] = request_id_;
  }
  for (auto id : ids) {
    if (id != 0) scheduler_->cancel(id);
  }
}

}  // namespace nsq::diskqueue
