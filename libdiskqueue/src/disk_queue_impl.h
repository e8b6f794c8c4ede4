#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "async_puts.h"
#include "checkpointer.h"
#include "diskqueue/disk_queue.h"
#include "group_commit.h"
#include "queue_files.h"
#include "queue_log.h"
#include "queue_state.h"
#include "readable_signal.h"
#include "segment_reader.h"
#include "segment_writer.h"

namespace nsq::diskqueue {

// What is behind DiskQueue: it owns the parts, each with its own job and
// the state it guards, and runs what needs several of them: opening,
// the checks of the public calls, and the operations that change the files
// under the writer role (empty, close, remove, skipping a bad segment;
// disk_queue_control.cc).
//
//   SegmentWriter  appends records, rolls segments, zero-fills ahead
//   GroupCommit    blocking puts sharing writes and fsyncs; the writer role
//   AsyncPuts      put_batch_async's groups on Options::executor
//   SegmentReader  reads records, spots corruption (its own lock)
//   Checkpointer   fsync + meta file, when and how (its own lock)
//   ReadableSignal wakes the consumer
//   QueueState     the positions they share, and the mutex guarding them
class DiskQueue::Impl {
 public:
  explicit Impl(Options options);  // recovers the files (recovery.h)
  ~Impl();                         // close() unless close() or remove() ran
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  std::error_code put_batch(std::span<const std::string_view> records, Durability durability);
  std::error_code put_batch_async(std::vector<std::string> records, Durability durability,
                                  PutCallback done);
  std::error_code try_put_batch(std::span<const std::string_view> records);

  std::size_t read_each(std::size_t max_records, std::size_t max_bytes, const RecordSink& each);
  bool wait_readable(std::chrono::milliseconds timeout) { return readable_.wait(timeout); }
  void notify_when_readable(std::function<void()> callback) {
    readable_.notify_when_readable(std::move(callback));
  }
  std::error_code commit_read(const ReadToken& token);

  std::int64_t depth() const;
  std::int64_t uncommitted() const;
  Positions positions() const;
  const QueueFiles& files() const { return files_; }
  const Options& options() const { return options_; }

  std::error_code sync();
  std::error_code empty() { return control(OpKind::empty); }
  std::error_code close();
  std::error_code remove();

 private:
  enum class OpKind { empty, close, remove, bad_segment };

  bool size_ok(std::size_t record_size) const;  // within [min_msg_size, max_msg_size]
  bool durable(Durability durability) const;

  // Takes the writer role (ahead of new puts), finishes the puts appended
  // so far, fsyncs included, then runs `kind` alone.
  std::error_code control(OpKind kind, std::int64_t file_num = 0, std::uint64_t generation = 0);
  std::error_code shut(std::unique_lock<std::mutex>& lock, bool checkpoint);
  void empty_files(std::unique_lock<std::mutex>& lock);
  void skip_bad_segment(std::unique_lock<std::mutex>& lock, std::int64_t file_num,
                        std::uint64_t generation);
  void close_files();

  const Options options_;
  const QueueFiles files_;
  const QueueLog log_;
  QueueState state_;
  ReadableSignal readable_;
  Checkpointer checkpointer_;
  SegmentWriter writer_;
  GroupCommit group_;
  std::unique_ptr<AsyncPuts> async_;  // null without Options::executor
  SegmentReader reader_;
};

}  // namespace nsq::diskqueue
