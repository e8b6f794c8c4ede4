#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>
#include <system_error>

#include "checkpointer.h"
#include "diskqueue/disk_queue.h"
#include "queue_files.h"
#include "queue_log.h"
#include "queue_state.h"
#include "readable_signal.h"

namespace nsq::diskqueue {

// The write end of the queue: appends whole records at the write position,
// rolls to a new segment where Options::max_bytes_per_file says, publishes
// each write to the reader, and keeps the zero fill ahead of the records
// (preallocate_bytes; docs/diskqueue_format.md, "Preallocation").
//
// Only the holder of GroupCommit's writer role calls it, one call at a time;
// it has no lock of its own. The references must outlive it.
class SegmentWriter {
 public:
  SegmentWriter(const Options& options, const QueueFiles& files, const QueueLog& log,
                QueueState& state, Checkpointer& checkpointer, ReadableSignal& readable);

  // Writes `data` (`records` whole records, framed) at the write position,
  // rolling to new segments as the size limit requires. `lock` holds
  // state.mu on entry and exit; the file I/O runs unlocked. On an error the
  // records before the failing write may be stored.
  std::error_code write_records(std::unique_lock<std::mutex>& lock, std::string_view data,
                                std::int64_t records);

  // state.mu held: whether `bytes` more can be written without a segment
  // roll (which fsyncs) or a zero fill (which writes up to a MiB).
  bool fits_without_waiting_locked(std::int64_t bytes) const;

  // state.mu held; the queue closing: cuts the zero fill off the write
  // segment and closes it.
  void close_locked();

 private:
  std::error_code flush(std::unique_lock<std::mutex>& lock, std::string_view data,
                        std::int64_t records);
  std::error_code roll_segment(std::unique_lock<std::mutex>& lock);
  bool preallocating() const noexcept;
  // Zero-fills the write segment ahead of `end`.
  void fill_ahead(OpenSegment& file, std::int64_t end);
  // Cuts the zeros past `end` off a segment being finished.
  void cut_fill(OpenSegment& file, std::int64_t end);

  const Options& options_;
  const QueueFiles& files_;
  const QueueLog& log_;
  QueueState& state_;
  Checkpointer& checkpointer_;
  ReadableSignal& readable_;
};

}  // namespace nsq::diskqueue
