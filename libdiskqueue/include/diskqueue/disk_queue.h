#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <tl/expected.hpp>

#include "diskqueue/errc.h"
#include "diskqueue/sync_scheduler.h"

namespace nsq::diskqueue {

template <class T>
using Result = tl::expected<T, std::error_code>;

enum class LogLevel { debug, info, warn, error };

// Receives the queue's log lines (corrupt files, repairs, I/O errors). Called
// from whichever thread hit the event, never with a queue lock held.
using Logger = std::function<void(LogLevel, std::string_view)>;

struct Options {
  // Base of every file name: NAME.diskqueue.NNNNNN.dat, NAME.diskqueue.meta.dat.
  std::string name;
  // Existing directory that holds the files.
  std::filesystem::path data_path = ".";
  // A new segment starts when the next record would cross this size
  // (a record is never split; a record larger than this gets a segment alone).
  std::int64_t max_bytes_per_file = 100 * 1024 * 1024;
  // Records outside [min_msg_size, max_msg_size] are refused by put() and
  // treated as corruption when read. nsqd uses 26 and max-msg-size + 26.
  std::int32_t min_msg_size = 0;
  std::int32_t max_msg_size = 1024 * 1024 + 26;
  // A checkpoint (fsync + meta file) runs in the background once this many
  // puts and reads happened since the last one. 1 means more: every put
  // returns only after its record is fsynced (concurrent puts share the
  // fsync); the meta file then follows on sync_timeout, which is safe because
  // reopening counts the records found past the checkpoint.
  std::int64_t sync_every = 2500;
  // ... and at the latest this long after the first unsynced operation.
  std::chrono::milliseconds sync_timeout{2000};
  // Runs the timed syncs; several queues should share one. Null: the queue
  // starts a scheduler of its own.
  std::shared_ptr<SyncScheduler> scheduler;
  Logger logger;
};

// A persistent FIFO of byte records, file-compatible with NSQ's go-diskqueue:
// segments of [4-byte big-endian length][payload] records plus a three-line
// text checkpoint (docs/diskqueue_format.md).
//
// Thread safety: put(), put_batch(), depth(), sync(), empty() may be called
// from any number of threads at once; concurrent puts are written with one
// write() and, when a sync is due, share one fsync (group commit). Reading
// (try_read, read_batch, wait_readable, notify_when_readable) is for one
// consumer at a time: calls are serialised, records come out in put order.
// Every call blocks on file I/O: keep it off event-loop threads.
class DiskQueue {
 public:
  // Opens (or creates, on first put) the queue in options.data_path,
  // recovering from an unclean shutdown as described in the format document.
  static Result<std::unique_ptr<DiskQueue>> open(Options options);

  ~DiskQueue();  // close() unless close() or remove() ran
  DiskQueue(const DiskQueue&) = delete;
  DiskQueue& operator=(const DiskQueue&) = delete;

  // Appends one record. Returns once it is written to the segment file; with
  // sync_every == 1, once it is fsynced (concurrent puts share the fsync).
  // Otherwise a due checkpoint runs in the background. errc::invalid_size,
  // errc::exiting, or the errno of a failed write (the queue stays usable).
  std::error_code put(std::string_view record);

  // Appends records in order with as few writes as possible. On an error the
  // records before the failing one may be stored (as NSQ's MPUB does).
  std::error_code put_batch(std::span<const std::string_view> records);

  // The next record, or nullopt when the queue is empty or closed. Corrupt
  // data is never returned: the segment holding it is renamed *.bad and
  // reading goes on with the next segment.
  std::optional<std::string> try_read();

  // Up to max_records records (fewer if the queue runs dry or max_bytes of
  // payload is reached; at least one if any is there).
  std::vector<std::string> read_batch(std::size_t max_records, std::size_t max_bytes);

  // Blocks until a record can be read, the queue closes, or timeout passes.
  bool wait_readable(std::chrono::milliseconds timeout);

  // Calls `callback` once, as soon as a record can be read: right away (on
  // this thread) if one can now, else on the thread of the put that adds it.
  // A later call replaces a callback that has not fired. This is how an event
  // loop waits for data without polling: the callback posts to the loop. It
  // must not call into this queue (it may run inside a put). It may fire
  // spuriously; try_read then returns nullopt and the caller arms it again.
  void notify_when_readable(std::function<void()> callback);

  // Records written and not yet read.
  std::int64_t depth() const;

  // fsync the write segment and write the checkpoint now: every record whose
  // put returned before this call is durable when it returns.
  std::error_code sync();

  // Drops every record: deletes the segments and the meta file (*.bad files
  // are kept) and starts over on a new segment number.
  std::error_code empty();

  // Flushes, writes the checkpoint and closes the files. Later calls get
  // errc::exiting.
  std::error_code close();

  // Closes without a checkpoint; with empty() first, this removes the queue.
  std::error_code remove();

  // Where the reader and writer are, for tests and stats.
  struct Positions {
    std::int64_t read_file_num, read_pos, write_file_num, write_pos, depth;
  };
  Positions positions() const;

  std::filesystem::path segment_path(std::int64_t file_num) const;
  std::filesystem::path meta_path() const;

 private:
  enum class OpKind { put, empty, close, remove, bad_segment };
  struct Op;
  struct File;  // an open segment, closed when the last user lets go

  explicit DiskQueue(Options options);
  std::error_code recover();

  // Group commit: every writer-side operation queues up; the one at the front
  // (the leader) runs it, plus the puts queued behind it, then hands over.
  std::error_code submit(Op& op);
  void lead(std::unique_lock<std::mutex>& lock, Op& leader);
  static void finish_group(const std::vector<Op*>& group, Op& leader);  // mu_ held
  std::error_code write_group(std::unique_lock<std::mutex>& lock);
  std::error_code await_fsync(std::unique_lock<std::mutex>& lock, std::uint64_t target,
                              std::size_t waiters);
  std::error_code flush_staging(std::unique_lock<std::mutex>& lock, std::int64_t records);
  std::error_code roll_segment(std::unique_lock<std::mutex>& lock);
  void do_empty(std::unique_lock<std::mutex>& lock);
  void do_bad_segment(std::unique_lock<std::mutex>& lock, std::int64_t file_num,
                      std::uint64_t generation);
  void close_files();
  void remove_segments(std::int64_t first, std::int64_t last) const;

  // Checkpoint: fdatasync the write segment, then write the meta file with
  // the positions seen before the fsync. checkpoint_locked needs meta_mu_.
  std::error_code checkpoint();
  std::error_code checkpoint_locked();

  // Reader side; called with read_mu_ held.
  enum class ReadStep { record, empty, bad_segment, retry };
  ReadStep read_one(std::string& out, std::int64_t& bad_file, std::uint64_t& bad_generation);
  bool fill_buffer(std::int64_t pos, std::size_t need, std::int64_t end);
  void reset_read_buffer();
  void close_read_file();

  void count_op_locked(std::int64_t n);  // mu_ held
  void arm_timer_locked();               // mu_ held
  void request_checkpoint_locked();      // mu_ held: a checkpoint soon, off this thread
  void fire_readable(std::unique_lock<std::mutex>& lock);
  bool has_data_locked() const;
  void log(LogLevel level, const std::string& text) const;

  const Options options_;
  std::shared_ptr<SyncScheduler> scheduler_;

  // State shared by the writer and the reader.
  mutable std::mutex mu_;
  std::deque<Op*> ops_;              // guarded by mu_; front is the leader
  std::int64_t depth_ = 0;           // guarded by mu_
  std::int64_t read_file_num_ = 0;   // guarded by mu_: next record to read
  std::int64_t read_pos_ = 0;        // guarded by mu_
  std::int64_t write_file_num_ = 0;  // guarded by mu_, changed only by the leader
  std::int64_t write_pos_ = 0;       // guarded by mu_, changed only by the leader
  std::shared_ptr<File> write_file_;  // guarded by mu_, changed only by the leader
  std::int64_t unsynced_ops_ = 0;    // guarded by mu_
  std::uint64_t generation_ = 0;     // guarded by mu_; bumped when files vanish under the reader
  bool closed_ = false;              // guarded by mu_
  bool timer_armed_ = false;         // guarded by mu_
  bool checkpoint_requested_ = false;   // guarded by mu_
  SyncScheduler::TaskId timer_id_ = 0;  // guarded by mu_
  SyncScheduler::TaskId checkpoint_id_ = 0;  // guarded by mu_
  std::function<void()> on_readable_;   // guarded by mu_

  // Durability of puts with sync_every == 1 (await_fsync); guarded by mu_.
  std::uint64_t written_seq_ = 0;  // records written so far
  std::uint64_t synced_seq_ = 0;   // records known fsynced
  std::uint64_t failed_seq_ = 0;   // records whose fsync failed ...
  std::error_code failed_ec_;      // ... with this error
  bool fsync_running_ = false;
  bool gathering_ = false;
  std::size_t fsync_waiters_ = 0;
  std::size_t last_fsync_batch_ = 0;
  std::chrono::microseconds last_fsync_time_{0};
  std::condition_variable sync_cv_;

  int read_waiters_ = 0;                // guarded by mu_
  std::condition_variable readable_cv_;

  // Serialises checkpoints with each other and with operations that delete
  // files (empty, bad segment, close), so a late checkpoint never describes
  // files that are gone. Lock order: leader role, read_mu_, meta_mu_, mu_.
  std::mutex meta_mu_;
  std::minstd_rand tmp_rand_;  // guarded by meta_mu_

  // Writer side: touched only by the current leader.
  std::string staging_;
  std::vector<Op*> group_;

  // Reader side: guarded by read_mu_.
  std::mutex read_mu_;
  int read_fd_ = -1;
  std::int64_t read_fd_num_ = -1;     // segment read_fd_ has open
  std::int64_t read_fd_end_ = -1;     // its size at open, if it is behind the writer
  std::vector<char> buf_;
  std::int64_t buf_num_ = -1;         // segment and offset the buffer holds
  std::int64_t buf_start_ = 0;
  std::size_t buf_len_ = 0;
  std::uint64_t buf_generation_ = 0;
};

}  // namespace nsq::diskqueue
