#include "segment_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "file_io.h"
#include "record_format.h"

namespace nsq::diskqueue {
namespace {

constexpr std::size_t kReadChunk = 256 * 1024;

}  // namespace

SegmentReader::SegmentReader(const Options& options, const QueueFiles& files, const QueueLog& log,
                             QueueState& state, Checkpointer& checkpointer)
    : options_(options), files_(files), log_(log), state_(state), checkpointer_(checkpointer) {}

SegmentReader::~SegmentReader() {
  if (fd_ >= 0) ::close(fd_);
}

SegmentReader::Step SegmentReader::read_next(const RecordSink& each, std::size_t max_records,
                                             std::size_t max_bytes, std::size_t& count,
                                             std::size_t& bytes) {
  std::lock_guard read_lock(mu_);
  return read_locked(each, max_records, max_bytes, count, bytes);
}

bool SegmentReader::in_buffer(std::int64_t pos, std::int64_t n) const {
  return buf_num_ == fd_num_ && pos >= buf_start_ &&
         pos + n <= buf_start_ + static_cast<std::int64_t>(buf_len_);
}

SegmentReader::Step SegmentReader::read_locked(const RecordSink& each, std::size_t max_records,
                                               std::size_t max_bytes, std::size_t& count,
                                               std::size_t& bytes) {
  Step step;
  std::int64_t rnum, rpos, wnum, wpos;
  std::uint64_t gen;
  {
    std::lock_guard lock(state_.mu);
    if (state_.closed) return step;
    rnum = state_.read_file_num;
    rpos = state_.read_pos;
    wnum = state_.write_file_num;
    wpos = state_.write_pos;
    gen = state_.generation;
  }
  auto bad = [&](std::int64_t file_num) {
    step.kind = Step::Kind::bad_segment;
    step.bad_file = file_num;
    step.bad_generation = gen;
    return step;
  };
  if (rnum > wnum || (rnum == wnum && rpos > wpos)) return bad(-1);
  if (rnum == wnum && rpos == wpos) return step;

  if (buf_generation_ != gen || fd_num_ != rnum) {
    close_file();
    buf_generation_ = gen;
    fd_ = ::open(files_.segment_path(rnum).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      log_(LogLevel::error, "failed to open " + files_.segment_path(rnum).string() +
                                " for reading - " + file_io::errno_code().message());
      return bad(rnum);
    }
    fd_num_ = rnum;
    fd_end_ = -1;
  }

  std::int64_t end = wpos;
  if (rnum < wnum) {
    // A finished segment ends where its file ends (which may be past the
    // checkpointed position after an unclean stop).
    if (fd_end_ < 0) {
      struct stat st;
      if (::fstat(fd_, &st) != 0) return bad(rnum);
      fd_end_ = st.st_size;
    }
    end = fd_end_;
    if (rpos >= end) {
      step.kind = Step::Kind::retry;
      std::lock_guard lock(state_.mu);
      if (state_.generation != gen || state_.read_file_num != rnum) return step;
      close_file();
      state_.read_file_num = rnum + 1;
      state_.read_pos = 0;
      if (state_.commits.manual()) {
        // Deleted once the commit passes it (Checkpointer::checkpoint_locked).
        if (state_.commits.segment_finished(rnum)) checkpointer_.request_locked();
      } else {
        ::unlink(files_.segment_path(rnum).c_str());
        checkpointer_.request_locked();  // never leave the checkpoint naming a deleted file
      }
      return step;
    }
  }

  // The records from rpos on, each checked as it is read; a bad one ends
  // the run, and is reported once it is the first. All of a run's records
  // lie in the buffer as it is once the first is in, so they are given
  // from there without a copy.
  spans_.clear();
  std::int64_t pos = rpos;
  std::size_t run_bytes = 0;
  const auto ran = [&] { return !spans_.empty(); };
  while (pos < end && spans_.size() < std::max<std::size_t>(max_records, 1) &&
         (!ran() || run_bytes < max_bytes)) {
    if (ran() && !in_buffer(pos, 4)) break;
    if (pos + 4 > end || !fill_buffer(pos, 4, end)) {
      if (ran()) break;
      log_(LogLevel::error, "truncated record header at " + std::to_string(pos) + " in " +
                                files_.segment_path(rnum).string());
      return bad(rnum);
    }
    std::int64_t len = record_format::get_u32be(buf_.data() + (pos - buf_start_));
    if (len < options_.min_msg_size || len > options_.max_msg_size) {
      if (ran()) break;
      log_(LogLevel::error, "invalid record size " + std::to_string(len) + " at " +
                                std::to_string(pos) + " in " + files_.segment_path(rnum).string());
      return bad(rnum);
    }
    if (ran() && !in_buffer(pos + 4, len)) break;
    if (pos + 4 + len > end || !fill_buffer(pos + 4, static_cast<std::size_t>(len), end)) {
      if (ran()) break;
      log_(LogLevel::error, "truncated record at " + std::to_string(pos) + " in " +
                                files_.segment_path(rnum).string());
      return bad(rnum);
    }
    spans_.emplace_back(pos + 4, static_cast<std::size_t>(len));
    run_bytes += static_cast<std::size_t>(len);
    pos += 4 + len;
  }

  tokens_.clear();
  {
    std::lock_guard lock(state_.mu);
    step.kind = Step::Kind::retry;
    if (state_.generation != gen || state_.read_file_num != rnum || state_.read_pos != rpos) {
      return step;
    }
    step.kind = Step::Kind::records;
    state_.read_pos = pos;
    const auto n = static_cast<std::int64_t>(spans_.size());
    // A checkpoint that undercounted (one that failed to parse counts 0)
    // must not make depth negative; reaching the writer makes it exact again.
    state_.depth = std::max<std::int64_t>(state_.depth - n, 0);
    for (const auto& [at, len] : spans_) {
      tokens_.push_back(state_.commits.record_read(rnum, at + static_cast<std::int64_t>(len)));
    }
    if (!state_.commits.manual()) checkpointer_.count_ops_locked(n);
    if (!state_.has_data() && state_.depth != 0) {
      log_(LogLevel::error, "read reached write position with depth " +
                                std::to_string(state_.depth) + " - resetting to 0");
      state_.depth = 0;
    }
  }
  // Outside the queue's state lock (writers go on), inside the reader's
  // (the buffer stays as it is).
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    each(std::string_view(buf_.data() + (spans_[i].first - buf_start_), spans_[i].second),
         tokens_[i]);
  }
  count += spans_.size();
  bytes += run_bytes;
  return step;
}

bool SegmentReader::fill_buffer(std::int64_t pos, std::size_t need, std::int64_t end) {
  if (buf_num_ == fd_num_ && pos >= buf_start_ &&
      pos + static_cast<std::int64_t>(need) <= buf_start_ + static_cast<std::int64_t>(buf_len_)) {
    return true;
  }
  std::size_t want = std::max(need, kReadChunk);
  want =
      static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(want), end - pos));
  if (want < need) return false;
  if (buf_.size() < want) buf_.resize(want);
  if (file_io::pread_full(fd_, buf_.data(), want, pos)) {
    reset_buffer();
    return false;
  }
  buf_num_ = fd_num_;
  buf_start_ = pos;
  buf_len_ = want;
  return true;
}

void SegmentReader::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  fd_num_ = -1;
  reset_buffer();
}

void SegmentReader::reset_buffer() {
  buf_num_ = -1;
  buf_start_ = 0;
  buf_len_ = 0;
}

}  // namespace nsq::diskqueue
