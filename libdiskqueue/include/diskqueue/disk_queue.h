#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <tl/expected.hpp>
#include <vector>

#include "diskqueue/errc.h"
#include "diskqueue/timer_thread.h"

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
  // loses nothing, a power cut may lose what sync_every has not fsynced yet.
  // With sync_every == 1 this means fsync as well.
  written,
  // Once the record is fsynced, whatever sync_every says. Concurrent callers
  // share each fsync (group commit); an fsync may wait up to half an fsync
  // time (at most 1 ms) for the callers the previous one released.
  fsync,
};

// Where a read record ends, handed out with it; commit_read() takes it back.
struct ReadToken {
  std::int64_t file_num = 0;  // segment and offset just past the record
  std::int64_t pos = 0;
  std::uint64_t seq = 0;    // records read since open, this one included
  std::uint64_t epoch = 0;  // bumped by empty() and by a corrupt-position restart
};

struct ReadRecord {
  std::string data;
  ReadToken token;
};

// Sees one record read: its bytes, valid during the call only, and its token.
using RecordSink = std::function<void(std::string_view data, const ReadToken& token)>;

struct Options {
  // Files NAME.diskqueue.NNNNNN.dat and NAME.diskqueue.meta.dat in data_path,
  // an existing directory.
  std::string name;
  std::filesystem::path data_path = ".";
  // A new segment starts when the next record would cross this size (a record
  // is never split; a larger one gets a segment alone).
  std::int64_t max_bytes_per_file = 100 * 1024 * 1024;
  // Records outside [min_msg_size, max_msg_size] are refused by put() and
  // treated as corruption when read. nsqd uses 26 and max-msg-size + 26.
  std::int32_t min_msg_size = 0;
  std::int32_t max_msg_size = 1024 * 1024 + 26;
  // A checkpoint (fsync + meta file) runs in the background after this many
  // puts and reads (commits, with manual_read_commit), or sync_timeout after
  // the first. 1 makes every put Durability::fsync; the meta file still
  // follows later (docs/diskqueue_format.md, "Durable puts").
  std::int64_t sync_every = 2500;
  std::chrono::milliseconds sync_timeout{2000};
  // false: a record is consumed when read (NSQ). true: reading only moves the
  // reader; the meta file's read position and segment deletion advance with
  // commit_read(), so a reopen delivers what was read and not committed.
  bool manual_read_commit = false;
  // Zero-fills the write segment this far ahead (0: off), so durable appends
  // overwrite allocated blocks and fdatasync has no size to commit. Finished
  // segments and closed queues carry no zeros. Needs min_msg_size >= 1.
  std::int64_t preallocate_bytes = 0;
  // Runs the timed checkpoints; several queues should share one. Null: the
  // queue starts its own.
  std::shared_ptr<TimerThread> scheduler;
  // Runs put_batch_async's writes (e.g. a pool's submit); every job must run
  // and not wait for other such jobs. Null: put_batch_async writes inline.
  std::function<void(std::function<void()>)> executor;
  Logger logger;
};

// Called once with the outcome of put_batch_async.
using PutCallback = std::function<void(std::error_code)>;

// A persistent FIFO of byte records, file-compatible with NSQ's go-diskqueue
// (docs/diskqueue_format.md; threading and durability in README.md).
//
// Thread safety: puts, commit_read, depth, sync and empty may be called from
// any number of threads; concurrent puts share writes and fsyncs. Reading
// (try_read ... notify_when_readable) is for one consumer at a time. Every
// call but put_batch_async and try_put_batch may block on file I/O.
class DiskQueue {
 public:
  // Opens (creating on first put) the queue, recovering from an unclean stop.
  static Result<std::unique_ptr<DiskQueue>> open(Options options);

  ~DiskQueue();  // close() unless close() or remove() ran
  DiskQueue(const DiskQueue&) = delete;
  DiskQueue& operator=(const DiskQueue&) = delete;

  // Appends one record and returns once it is as durable as asked.
  // errc::invalid_size, errc::exiting, or the errno of a failed write or
  // fsync (the queue stays usable; the record may still be stored).
  std::error_code put(std::string_view record, Durability durability = Durability::written);
  // Appends in order with as few writes as possible; on an error the records
  // before the failing one may be stored (as NSQ's MPUB).
  std::error_code put_batch(std::span<const std::string_view> records,
                            Durability durability = Durability::written);
  // put_batch without waiting: `done` runs exactly once, on an executor
  // thread, with put_batch's result. Puts arriving while a group is written go
  // together into the next group, one executor job. Invalid sizes and a
  // closed queue are returned here, and `done` is not called.
  std::error_code put_batch_async(std::vector<std::string> records, Durability durability,
                                  PutCallback done);
  // put_batch (written) only when it can write at once, one pwrite to the page
  // cache: writer free, nothing pending, no segment roll. Else errc::busy and
  // nothing written (always busy when sync_every <= 1).
  std::error_code try_put_batch(std::span<const std::string_view> records);

  // The next record, or nullopt when empty or closed. Corrupt data is never
  // returned: its segment is renamed *.bad and reading goes on after it.
  std::optional<std::string> try_read();
  // Up to max_records records, stopping once max_bytes of payload is reached
  // (at least one if any is there).
  std::vector<std::string> read_batch(std::size_t max_records, std::size_t max_bytes);
  // Blocks until a record can be read, the queue closes, or timeout passes.
  bool wait_readable(std::chrono::milliseconds timeout);
  // Calls `callback` once when a record can be read: now, on this thread, or
  // on the thread of the put that adds it. A later call replaces it. It must
  // not call into this queue and may fire spuriously (re-arm on nullopt).
  void notify_when_readable(std::function<void()> callback);
  // try_read/read_batch with each record's token for commit_read().
  std::optional<ReadRecord> try_read_record();
  std::vector<ReadRecord> read_records(std::size_t max_records, std::size_t max_bytes);
  // read_records without a copy of each record: `each` sees them (it must
  // not call into this queue); how many it saw.
  std::size_t read_each(std::size_t max_records, std::size_t max_bytes, const RecordSink& each);

  // Up to max_records unread records from the reader's position on, without
  // moving it (inspection: nsqd's /channel/peek): `each` sees each payload;
  // how many it saw. Reads the segment files on its own descriptors, so it
  // may run beside the reader and writers; a record read or a segment
  // removed meanwhile ends it early. Stops at the first invalid size.
  std::size_t peek_each(std::size_t max_records, std::size_t max_bytes,
                        const std::function<void(std::string_view data)>& each) const;

  // With manual_read_commit: every record up to the token's is done. Any
  // thread; a token at or behind the commit (or from before empty()) is
  // ignored; errc::invalid_token for one past the reader. The position
  // reaches the meta file with the next checkpoint. Otherwise a no-op.
  std::error_code commit_read(const ReadToken& token);

  // Records written and not yet read; uncommitted(): read, not committed.
  std::int64_t depth() const;
  std::int64_t uncommitted() const;

  // fsync and checkpoint now: every put that returned before is durable.
  std::error_code sync();
  // Drops every record (segments and meta file; *.bad files stay) and starts
  // over on a new segment number.
  std::error_code empty();
  // Flushes, checkpoints and closes the files; later calls get errc::exiting.
  std::error_code close();
  // Closes without a checkpoint; with empty() first, removes the queue.
  std::error_code remove();

  // Where the reader and writer are, for tests and stats. The commit position
  // equals the read position without manual_read_commit.
  struct Positions {
    std::int64_t read_file_num, read_pos, write_file_num, write_pos, depth;
    std::int64_t commit_file_num = 0, commit_pos = 0, uncommitted = 0;
  };
  Positions positions() const;

  std::filesystem::path segment_path(std::int64_t file_num) const;
  std::filesystem::path meta_path() const;

 private:
  class Impl;  // src/disk_queue_impl.h
  explicit DiskQueue(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsq::diskqueue
