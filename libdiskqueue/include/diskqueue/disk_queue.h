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

// How far a put goes before it returns.
enum class Durability {
  // Once the record is in the segment file (page cache): a killed process
  // loses nothing, a power cut may lose what Options::sync_every has not
  // fsynced yet. With sync_every == 1 this means fsync as well.
  written,
  // Once the record is fsynced, whatever sync_every says. Concurrent callers
  // share each fsync (group commit), and records are written while the
  // previous group's fsync runs. An fsync may wait up to half an fsync time
  // (at most 1 ms) for the callers the previous one released to join it.
  fsync,
};

// Where a read record ends, handed out with it; commit_read() takes it back.
// Plain data, cheap to copy and store beside an in-flight message.
struct ReadToken {
  std::int64_t file_num = 0;  // segment and offset just past the record
  std::int64_t pos = 0;
  std::uint64_t seq = 0;      // records read since open, this one included
  std::uint64_t epoch = 0;    // bumped by empty() and by a corrupt-position restart
};

struct ReadRecord {
  std::string data;
  ReadToken token;
};

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
  // puts and reads (commits, with manual_read_commit) happened since the last
  // one. 1 means more: every put is Durability::fsync. The meta file follows
  // on sync_timeout, which is safe because reopening counts the records found
  // past the checkpoint (docs/diskqueue_format.md, "Durable puts").
  std::int64_t sync_every = 2500;
  // ... and at the latest this long after the first unsynced operation.
  std::chrono::milliseconds sync_timeout{2000};
  // false: a record is consumed when it is read (NSQ's behaviour).
  // true: reading only moves the reader; the read position written to the
  // meta file, and the deletion of finished segments, advance only with
  // commit_read(). After a crash, or close() and open(), reading starts again
  // at the last committed position, so records read but not committed are
  // delivered again (at-least-once).
  bool manual_read_commit = false;
  // Zero-fills the write segment this many bytes ahead of the write
  // position (0: off). Durable appends then overwrite blocks the file system
  // has already allocated, so their fdatasync has no metadata to commit
  // (on ext4 about a third faster per fsync). The zeros are cut off when a
  // segment is finished or the queue closed, and by open() after a crash, so
  // finished segments stay byte-for-byte NSQ's. Needs min_msg_size >= 1 (a
  // zero header is how the end of the records is told); ignored otherwise.
  std::int64_t preallocate_bytes = 0;
  // Runs the timed syncs; several queues should share one. Null: the queue
  // starts a scheduler of its own.
  std::shared_ptr<SyncScheduler> scheduler;
  // Runs the writes of put_batch_async (e.g. a thread pool's submit). Every
  // job handed to it must run, and not wait for other such jobs. Null:
  // put_batch_async writes on the calling thread.
  std::function<void(std::function<void()>)> executor;
  Logger logger;
};

// Called once with the outcome of put_batch_async.
using PutCallback = std::function<void(std::error_code)>;

// A persistent FIFO of byte records, file-compatible with NSQ's go-diskqueue:
// segments of [4-byte big-endian length][payload] records plus a three-line
// text checkpoint (docs/diskqueue_format.md).
//
// Thread safety: put(), put_batch(), put_batch_async(), commit_read(),
// depth(), sync(), empty() may be called from any number of threads at once;
// concurrent puts are written with one write() per group and share fsyncs
// (group commit). Reading (try_read, read_batch, try_read_record,
// read_records, wait_readable, notify_when_readable) is for one consumer at a
// time: calls are serialised, records come out in put order. Every call but
// put_batch_async and try_put_batch (one page-cache write) may block on file
// I/O: keep them off event-loop threads.
class DiskQueue {
 public:
  // Opens (or creates, on first put) the queue in options.data_path,
  // recovering from an unclean shutdown as described in the format document.
  static Result<std::unique_ptr<DiskQueue>> open(Options options);

  ~DiskQueue();  // close() unless close() or remove() ran
  DiskQueue(const DiskQueue&) = delete;
  DiskQueue& operator=(const DiskQueue&) = delete;

  // Appends one record; returns once it is as durable as `durability` asks
  // (see Durability). Otherwise a due checkpoint runs in the background.
  // errc::invalid_size, errc::exiting, or the errno of a failed write or
  // fsync (the queue stays usable; a record whose put failed may still be
  // stored and read: at-least-once, as a retried publish).
  std::error_code put(std::string_view record, Durability durability = Durability::written);

  // Appends records in order with as few writes as possible. On an error the
  // records before the failing one may be stored (as NSQ's MPUB does).
  std::error_code put_batch(std::span<const std::string_view> records,
                            Durability durability = Durability::written);

  // put_batch without waiting: takes the records and returns at once; `done`
  // runs exactly once, on an executor thread, with what put_batch would have
  // returned. Puts that arrive while a group is being written and fsynced go
  // together into the next group, written by one executor job, so a crowd of
  // single-record publishers shares each fsync without holding a thread each.
  // A durable group waits briefly (at most half the last group's time, and
  // 1 ms) until as many puts arrived as the recent groups carried. Invalid
  // sizes and a closed queue are refused here: the error is returned and
  // `done` is not called.
  std::error_code put_batch_async(std::vector<std::string> records, Durability durability,
                                  PutCallback done);

  // put_batch (Durability::written) only when it can write at once: with the
  // writer free, no put pending, and the records fitting in the write
  // segment (a roll fsyncs). Otherwise nothing is written and errc::busy is
  // returned, for the caller to use put_batch_async. What it costs when it
  // writes is one pwrite to the page cache, so an event-loop thread can
  // afford it and skip two thread hops. Refused (busy) when every put is
  // durable (sync_every <= 1).
  std::error_code try_put_batch(std::span<const std::string_view> records);

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

  // The same as try_read/read_batch, each record with the token to pass to
  // commit_read().
  std::optional<ReadRecord> try_read_record();
  std::vector<ReadRecord> read_records(std::size_t max_records, std::size_t max_bytes);

  // With manual_read_commit: every record read up to and including the one
  // `token` came with is done. Commits may come from any thread; a token at
  // or behind the committed position (or from before an empty()) is ignored,
  // so committing out of order is harmless but only the furthest counts.
  // The new position reaches the meta file with the next checkpoint (by
  // sync_every / sync_timeout, or at once when it leaves a segment, which is
  // then deleted). errc::invalid_token for a token past the reader. Without
  // manual_read_commit, reads commit themselves and this does nothing.
  std::error_code commit_read(const ReadToken& token);

  // Records written and not yet read (exact). With manual_read_commit the
  // records read but not committed are counted by uncommitted() instead; the
  // meta file holds depth() + uncommitted(), the records a reopen delivers.
  std::int64_t depth() const;
  std::int64_t uncommitted() const;

  // fsync the write segment and write the checkpoint now: every record whose
  // put returned before this call is durable when it returns.
  std::error_code sync();

  // Drops every record: deletes the segments and the meta file (*.bad files
  // are kept) and starts over on a new segment number. Uncommitted reads are
  // dropped too.
  std::error_code empty();

  // Flushes, writes the checkpoint and closes the files. Later calls get
  // errc::exiting.
  std::error_code close();

  // Closes without a checkpoint; with empty() first, this removes the queue.
  std::error_code remove();

  // Where the reader and writer are, for tests and stats. The commit
  // position equals the read position without manual_read_commit.
  struct Positions {
    std::int64_t read_file_num, read_pos, write_file_num, write_pos, depth;
    std::int64_t commit_file_num = 0, commit_pos = 0, uncommitted = 0;
  };
  Positions positions() const;

  std::filesystem::path segment_path(std::int64_t file_num) const;
  std::filesystem::path meta_path() const;

 private:
  enum class OpKind { empty, close, remove, bad_segment };
  struct Batch;  // records appended together, written with one write()
  struct File;   // an open segment, closed when the last user lets go

  explicit DiskQueue(Options options);
  std::error_code recover();
  bool size_ok(std::size_t record_size) const;  // within [min_msg_size, max_msg_size]

  // put_batch_async (disk_queue_async.cc): the puts waiting for the next
  // group, and the executor job that writes groups until none is left.
  struct AsyncPut {
    std::vector<std::string> records;
    PutCallback done;
  };
  void run_async_puts();
  void finish_async_puts();  // refuses new ones, waits for the job to end
  void delete_orphans_behind(std::int64_t file_num) const;

  // Group commit (disk_queue_write.cc). Two roles, each held by at most one
  // caller at a time: the writer writes the open batch, the syncer fsyncs
  // every written batch at once. Whoever waits and sees a free role with
  // work behind it takes it, so the next group is written while the
  // previous group's fsync runs.
  std::error_code append_and_wait(std::span<const std::string_view> records, bool durable);
  void drive(std::unique_lock<std::mutex>& lock, Batch& mine, std::uint32_t need);
  void write_batches(std::unique_lock<std::mutex>& lock, const Batch& mine, std::uint32_t need);
  void write_open_batch(std::unique_lock<std::mutex>& lock);
  void sync_batches(std::unique_lock<std::mutex>& lock);
  void release_writer(std::unique_lock<std::mutex>& lock);
  std::error_code write_records(std::unique_lock<std::mutex>& lock, std::string_view data,
                                std::int64_t records);
  std::error_code flush(std::unique_lock<std::mutex>& lock, std::string_view data,
                        std::int64_t records);
  std::error_code roll_segment(std::unique_lock<std::mutex>& lock);
  // preallocate_bytes: zero-fills the write segment ahead of `end`, and cuts
  // the zeros past `end` off a segment being finished.
  bool preallocating() const noexcept;
  void fill_ahead(File& file, std::int64_t end);
  void cut_fill(File& file, std::int64_t end);
  // open(): cuts what a crash left behind the last whole record of segment
  // `file_num` past the checkpoint (the scan starts at `from`, a record
  // boundary): preallocated zeros and a write it cut short.
  void cut_unfinished_tail(std::int64_t file_num, std::int64_t from);
  struct RecordWalk {
    std::int64_t end;    // just past the last whole valid record
    std::int64_t count;  // records walked
  };
  RecordWalk walk_records(int fd, std::int64_t from, std::int64_t size) const;

  // Writer-side operations other than puts: take the writer role, finish
  // every pending put, then run alone.
  std::error_code control(OpKind kind, std::int64_t file_num = 0, std::uint64_t generation = 0);
  void do_empty(std::unique_lock<std::mutex>& lock);
  void do_bad_segment(std::unique_lock<std::mutex>& lock, std::int64_t file_num,
                      std::uint64_t generation);
  void reset_commit_locked();  // mu_ held: commit position := read position
  void segment_finished_locked(std::int64_t file_num);  // mu_ held
  void advance_commit_locked();  // mu_ held: past the finished segments fully committed
  void close_files();
  void remove_segments(std::int64_t first, std::int64_t last) const;

  // Checkpoint: fdatasync the write segment, then write the meta file with
  // the positions seen before the fsync. checkpoint_locked needs meta_mu_.
  std::error_code checkpoint();
  std::error_code checkpoint_locked();

  // Reader side; called with read_mu_ held.
  enum class ReadStep { record, empty, bad_segment, retry };
  ReadStep read_one(ReadRecord& out, std::int64_t& bad_file, std::uint64_t& bad_generation);
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
  std::int64_t depth_ = 0;           // guarded by mu_: records not yet read
  std::int64_t read_file_num_ = 0;   // guarded by mu_: next record to read
  std::int64_t read_pos_ = 0;        // guarded by mu_
  std::int64_t write_file_num_ = 0;  // guarded by mu_, changed only by the writer role
  std::int64_t write_pos_ = 0;       // guarded by mu_, changed only by the writer role
  std::shared_ptr<File> write_file_;  // guarded by mu_, changed only by the writer role
  std::int64_t unsynced_ops_ = 0;    // guarded by mu_
  std::uint64_t generation_ = 0;     // guarded by mu_; bumped when files vanish under the reader
  bool closed_ = false;              // guarded by mu_
  bool timer_armed_ = false;         // guarded by mu_
  bool checkpoint_requested_ = false;   // guarded by mu_
  SyncScheduler::TaskId timer_id_ = 0;  // guarded by mu_
  SyncScheduler::TaskId checkpoint_id_ = 0;  // guarded by mu_
  std::function<void()> on_readable_;   // guarded by mu_

  // Manual read commit; guarded by mu_. Records read since open are numbered
  // 1..read_seq_; those up to committed_seq_ are committed. finished_ lists
  // the segments the reader left that are not yet behind the commit, with
  // the number of the last record read in each.
  std::int64_t commit_file_num_ = 0;
  std::int64_t commit_pos_ = 0;
  std::uint64_t read_seq_ = 0;
  std::uint64_t committed_seq_ = 0;
  std::uint64_t commit_epoch_ = 0;
  std::deque<std::pair<std::int64_t, std::uint64_t>> finished_;
  std::int64_t delete_from_ = 0;  // guarded by meta_mu_: first segment not yet deleted

  // Group commit; guarded by mu_.
  std::shared_ptr<Batch> open_;                 // takes new records
  std::deque<std::shared_ptr<Batch>> unsynced_;  // written, waiting for an fsync
  std::int64_t unsynced_records_ = 0;
  bool writing_ = false;                        // writer role taken
  bool syncing_ = false;                        // syncer role taken
  int control_waiting_ = 0;                     // control ops waiting for the writer role
  std::condition_variable control_cv_;
  bool gathering_ = false;                      // the syncer waits for more batches
  std::condition_variable gather_cv_;
  std::int64_t last_sync_records_ = 0;          // recent largest fsync group (decays)
  std::int64_t released_ = 0;                   // durable callers the last fsync released
  std::int64_t durable_arrivals_ = 0;           // durable callers appended since then
  std::chrono::microseconds last_fsync_time_{0};
  std::string spare_;                           // a written batch's buffer, for reuse

  // put_batch_async; guarded by async_mu_, never held with the other locks.
  std::mutex async_mu_;
  std::condition_variable async_cv_;   // arrivals while gathering; the job's end
  std::vector<AsyncPut> async_pending_;
  bool async_durable_ = false;         // a pending put asked for an fsync
  bool async_running_ = false;         // a job is queued or running
  bool async_gathering_ = false;
  bool async_closed_ = false;
  std::size_t async_last_group_ = 0;   // puts in the recent largest durable group (decays)
  std::chrono::microseconds async_last_time_{0};  // and how long it took

  int read_waiters_ = 0;                // guarded by mu_
  std::condition_variable readable_cv_;

  // Serialises checkpoints with each other and with operations that delete
  // files (empty, bad segment, close), so a late checkpoint never describes
  // files that are gone. Lock order: writer role, read_mu_, meta_mu_, mu_.
  std::mutex meta_mu_;
  std::minstd_rand tmp_rand_;  // guarded by meta_mu_

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
