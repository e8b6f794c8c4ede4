#include "read_commits.h"

namespace nsq::diskqueue {

void ReadCommits::start_at(std::int64_t file_num, std::int64_t pos) {
  file_num_ = file_num;
  pos_ = pos;
}

ReadToken ReadCommits::record_read(std::int64_t file_num, std::int64_t pos) {
  ++read_seq_;
  if (!manual_) committed_seq_ = read_seq_;
  return {file_num, pos, read_seq_, epoch_};
}

// A token at or behind the committed position (or from before a reset) is
// ignored, so committing out of order is harmless.
Result<ReadCommits::Committed> ReadCommits::commit(const ReadToken& token) {
  if (token.epoch != epoch_ || token.seq <= committed_seq_) return Committed{};
  if (token.seq > read_seq_) return tl::unexpected(make_error_code(errc::invalid_token));
  std::int64_t from_file = file_num_;
  Committed done;
  done.records = static_cast<std::int64_t>(token.seq - committed_seq_);
  committed_seq_ = token.seq;
  if (token.file_num > file_num_ || (token.file_num == file_num_ && token.pos > pos_)) {
    file_num_ = token.file_num;
    pos_ = token.pos;
  }
  advance();
  done.left_segment = file_num_ != from_file;
  return done;
}

bool ReadCommits::segment_finished(std::int64_t file_num) {
  if (!manual_) return false;
  finished_.emplace_back(file_num, read_seq_);
  std::int64_t from_file = file_num_;
  advance();
  return file_num_ != from_file;
}

void ReadCommits::advance() {
  while (!finished_.empty() && finished_.front().second <= committed_seq_) {
    if (finished_.front().first >= file_num_) {
      file_num_ = finished_.front().first + 1;
      pos_ = 0;
    }
    finished_.pop_front();
  }
}

void ReadCommits::reset(std::int64_t read_file_num, std::int64_t read_pos) {
  file_num_ = read_file_num;
  pos_ = read_pos;
  committed_seq_ = read_seq_;
  finished_.clear();
  ++epoch_;
}

}  // namespace nsq::diskqueue
