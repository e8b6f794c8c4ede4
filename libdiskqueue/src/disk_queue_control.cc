// The operations that change the files under a running queue: empty, close,
// remove, and skipping a corrupt segment. Each takes GroupCommit's writer
// role ahead of new puts, finishes the puts already appended, then runs
// alone. Lock order: writer role, SegmentReader, Checkpointer, QueueState.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "disk_queue_impl.h"
#include "file_io.h"

namespace nsq::diskqueue {

std::error_code DiskQueue::Impl::close() {
  if (async_) async_->finish();
  std::error_code ec = control(OpKind::close);
  checkpointer_.cancel_scheduled();
  return ec;
}

std::error_code DiskQueue::Impl::remove() {
  if (async_) async_->finish();
  return control(OpKind::remove);
}

std::error_code DiskQueue::Impl::control(OpKind kind, std::int64_t file_num,
                                         std::uint64_t generation) {
  std::unique_lock lock(state_.mu);
  if (state_.closed) return make_error_code(errc::exiting);
  group_.take_writer_role(lock);

  std::error_code result;
  if (state_.closed) {
    result = make_error_code(errc::exiting);
  } else {
    switch (kind) {
      case OpKind::empty:
        empty_files(lock);
        break;
      case OpKind::close:
        result = shut(lock, true);
        break;
      case OpKind::remove:
        shut(lock, false);
        break;
      case OpKind::bad_segment:
        skip_bad_segment(lock, file_num, generation);
        break;
    }
  }
  group_.release_writer_role(lock);
  return result;
}

// Marks the queue closed and closes its files; with `checkpoint` (close)
// the checkpoint comes first, and the Checkpointer's lock is held until the
// queue is marked closed, so that no scheduled checkpoint runs after it.
std::error_code DiskQueue::Impl::shut(std::unique_lock<std::mutex>& lock, bool checkpoint) {
  std::error_code ec;
  lock.unlock();
  {
    std::unique_lock<std::mutex> meta_lock;
    if (checkpoint) {
      meta_lock = checkpointer_.lock();
      ec = checkpointer_.checkpoint_locked();
    }
    lock.lock();
    state_.closed = true;
    readable_.close_locked();
    lock.unlock();
  }
  close_files();
  lock.lock();
  return ec;
}

void DiskQueue::Impl::empty_files(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  auto read_lock = reader_.lock();
  auto meta_lock = checkpointer_.lock();
  reader_.close_file();
  lock.lock();
  state_.write_file.reset();
  std::int64_t first = std::min(state_.commits.file_num(), state_.read_file_num);
  std::int64_t last = state_.write_file_num;
  lock.unlock();
  files_.remove_segments(first, last);
  ::unlink(files_.meta_path().c_str());
  lock.lock();
  ++state_.write_file_num;
  state_.write_pos = 0;
  state_.read_file_num = state_.write_file_num;
  state_.read_pos = 0;
  state_.depth = 0;
  ++state_.generation;
  state_.commits.reset(state_.read_file_num, state_.read_pos);
  checkpointer_.set_delete_from(state_.read_file_num);
  checkpointer_.count_ops_locked(1);  // the checkpoint is rewritten by the next sync
}

// `file_num` is the segment the reader found corrupt, or -1 for a read
// position past the write position; `generation` is state.generation when it
// was found: if files changed since, the report is stale and ignored.
void DiskQueue::Impl::skip_bad_segment(std::unique_lock<std::mutex>& lock, std::int64_t file_num,
                                       std::uint64_t generation) {
  lock.unlock();
  auto read_lock = reader_.lock();
  auto meta_lock = checkpointer_.lock();
  lock.lock();
  if (state_.generation != generation || (file_num >= 0 && state_.read_file_num != file_num)) {
    return;
  }
  ++state_.generation;
  lock.unlock();
  reader_.close_file();
  lock.lock();

  if (file_num < 0) {
    // Read position past the write position: the checkpoint lies. Start over.
    std::int64_t first =
        std::min({state_.read_file_num, state_.write_file_num, state_.commits.file_num()});
    std::int64_t last = std::max(state_.read_file_num, state_.write_file_num);
    state_.write_file.reset();
    lock.unlock();
    log_(LogLevel::error,
         "read position past write position - corrupt metadata, skipping to a new file");
    files_.remove_segments(first, last);
    lock.lock();
    state_.write_file_num = last + 1;
    state_.write_pos = 0;
    state_.read_file_num = state_.write_file_num;
    state_.read_pos = 0;
    state_.depth = 0;
    state_.commits.reset(state_.read_file_num, state_.read_pos);
    checkpointer_.set_delete_from(state_.read_file_num);
  } else {
    if (file_num == state_.write_file_num) {
      // The reader abandons this file, so the writer must too.
      state_.write_file.reset();
      ++state_.write_file_num;
      state_.write_pos = 0;
    }
    std::filesystem::path path = files_.segment_path(file_num);
    std::filesystem::path bad = path;
    bad += ".bad";
    lock.unlock();
    log_(LogLevel::error, "jump to next file and saving bad file as " + bad.string());
    if (::rename(path.c_str(), bad.c_str()) != 0) {
      log_(LogLevel::error, "failed to rename bad file " + path.string() + " to " + bad.string() +
                                " - " + file_io::errno_code().message());
    }
    lock.lock();
    state_.read_file_num = file_num + 1;
    state_.read_pos = 0;
    if (state_.commits.segment_finished(file_num)) checkpointer_.request_locked();
  }
  if (!state_.has_data() && state_.depth != 0) {
    log_(LogLevel::error, "read reached write position with depth " + std::to_string(state_.depth) +
                              " (records lost with the bad file) - resetting to 0");
    state_.depth = 0;
  }
  lock.unlock();
  checkpointer_.checkpoint_locked();
  lock.lock();
}

void DiskQueue::Impl::close_files() {
  {
    std::lock_guard lock(state_.mu);
    writer_.close_locked();
  }
  auto read_lock = reader_.lock();
  reader_.close_file();
}

}  // namespace nsq::diskqueue
