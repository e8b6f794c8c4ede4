#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "checkpointer.h"
#include "diskqueue/disk_queue.h"
#include "queue_files.h"
#include "queue_log.h"
#include "queue_state.h"

namespace nsq::diskqueue {

// The read end of the queue: reads records at the read position through a
// 256 KiB read-ahead buffer, never past the published write position (so
// never half a record), moves to the next segment at a segment's end
// (deleting the one it left unless manual_read_commit), and spots
// corruption: a length outside [min_msg_size, max_msg_size], a truncated
// record, a segment that cannot be opened. It reports corruption and
// leaves the repair (DiskQueue::Impl::skip_bad_segment) to the caller, which
// needs the writer role.
//
// Thread-safe: one read at a time (its own lock). The references must
// outlive it.
class SegmentReader {
 public:
  SegmentReader(const Options& options, const QueueFiles& files, const QueueLog& log,
                QueueState& state, Checkpointer& checkpointer);
  ~SegmentReader();

  struct Step {
    enum class Kind { records, empty, bad_segment, retry };
    Kind kind = Kind::empty;
    std::int64_t bad_file = 0;         // kind == bad_segment: -1 for corrupt positions
    std::uint64_t bad_generation = 0;  // state.generation when it was found
  };
  // Gives `each` the records at the read position, at least one and up to
  // `max_records` (and no more once `max_bytes` are in), as far as the
  // segment and the read-ahead buffer go: the queue's state is taken and
  // moved once for them all, not once a record. A record's bytes are valid
  // during its call only; `each` must not call into the queue. Kind records
  // when it gave any; `count` and `bytes` grow by what it gave.
  Step read_next(const RecordSink& each, std::size_t max_records, std::size_t max_bytes,
                 std::size_t& count, std::size_t& bytes);

  // Serialises reads; a repair holds it to close the file under the reader.
  [[nodiscard]] std::unique_lock<std::mutex> lock() { return std::unique_lock(mu_); }
  // lock() held: closes the segment being read (it is about to go).
  void close_file();

 private:
  Step read_locked(const RecordSink& each, std::size_t max_records, std::size_t max_bytes,
                   std::size_t& count, std::size_t& bytes);
  // Whether buf_ holds [pos, pos + n) of the open segment.
  bool in_buffer(std::int64_t pos, std::int64_t n) const;
  // Makes buf_ hold [pos, pos + need) of the open segment, reading no
  // further than `end` (bytes past it may still change).
  bool fill_buffer(std::int64_t pos, std::size_t need, std::int64_t end);
  void reset_buffer();

  const Options& options_;
  const QueueFiles& files_;
  const QueueLog& log_;
  QueueState& state_;
  Checkpointer& checkpointer_;

  // Guards the fields below: the open segment and the read-ahead buffer.
  std::mutex mu_;
  int fd_ = -1;
  std::int64_t fd_num_ = -1;  // segment fd_ has open
  std::int64_t fd_end_ = -1;  // its size at open, if it is behind the writer
  std::vector<char> buf_;
  std::int64_t buf_num_ = -1;  // segment and offset the buffer holds
  std::int64_t buf_start_ = 0;
  std::size_t buf_len_ = 0;
  std::uint64_t buf_generation_ = 0;
  // A read's records: their bytes in buf_ ([pos, pos + length)), then their
  // tokens; kept to reuse their memory.
  std::vector<std::pair<std::int64_t, std::size_t>> spans_;
  std::vector<ReadToken> tokens_;
};

}  // namespace nsq::diskqueue
