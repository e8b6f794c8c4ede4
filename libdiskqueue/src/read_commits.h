#pragma once

#include <cstdint>
#include <deque>
#include <system_error>
#include <utility>

#include "diskqueue/disk_queue.h"

namespace nsq::diskqueue {

// Which of the records read are done (Options::manual_read_commit): the
// committed position the checkpoint names, and the numbering of reads that
// tokens carry. Without manual_read_commit every read commits itself.
//
// Not thread-safe: it lives in QueueState, and every call needs
// QueueState::mu held.
class ReadCommits {
 public:
  explicit ReadCommits(bool manual) : manual_(manual) {}

  bool manual() const { return manual_; }

  // At open: the committed position is the read position.
  void start_at(std::int64_t file_num, std::int64_t pos);

  // A record ending at (file_num, pos) was read: numbers it and returns its
  // token (committed at once unless manual).
  ReadToken record_read(std::int64_t file_num, std::int64_t pos);

  // commit_read(): how many records the token committed, and whether the
  // committed position left a segment (which a checkpoint should now delete).
  struct Committed {
    std::int64_t records = 0;
    bool left_segment = false;
  };
  Result<Committed> commit(const ReadToken& token);

  // The reader left segment `file_num`; true when that moved the committed
  // position past it (manual only).
  bool segment_finished(std::int64_t file_num);

  // empty() or a restart after corrupt positions: forgets what was read and
  // not committed (its tokens no longer count); commit := read position.
  void reset(std::int64_t read_file_num, std::int64_t read_pos);

  std::int64_t file_num() const { return file_num_; }
  std::int64_t pos() const { return pos_; }
  // Records read and not committed.
  std::int64_t uncommitted() const { return static_cast<std::int64_t>(read_seq_ - committed_seq_); }

 private:
  // A segment the reader left whose every read record is committed is done:
  // the commit moves to the start of the next one.
  void advance();

  const bool manual_;
  std::int64_t file_num_ = 0;  // the committed position
  std::int64_t pos_ = 0;
  // Records read since open are numbered 1..read_seq_; those up to
  // committed_seq_ are committed.
  std::uint64_t read_seq_ = 0;
  std::uint64_t committed_seq_ = 0;
  std::uint64_t epoch_ = 0;  // bumped by reset(): older tokens are ignored
  // The segments the reader left that are not yet behind the commit, with
  // the number of the last record read in each.
  std::deque<std::pair<std::int64_t, std::uint64_t>> finished_;
};

}  // namespace nsq::diskqueue
