// Reading (one consumer at a time, serialised by read_mu_) and read commits.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "disk_queue_internal.h"
#include "file_io.h"

namespace nsq::diskqueue {
namespace {

constexpr std::size_t kReadChunk = 256 * 1024;

}  // namespace

using detail::ec_text;

std::optional<std::string> DiskQueue::try_read() {
  auto records = read_records(1, 1);
  if (records.empty()) return std::nullopt;
  return std::move(records.front().data);
}

std::vector<std::string> DiskQueue::read_batch(std::size_t max_records, std::size_t max_bytes) {
  auto records = read_records(max_records, max_bytes);
  std::vector<std::string> out;
  out.reserve(records.size());
  for (auto& r : records) out.push_back(std::move(r.data));
  return out;
}

std::optional<ReadRecord> DiskQueue::try_read_record() {
  auto records = read_records(1, 1);
  if (records.empty()) return std::nullopt;
  return std::move(records.front());
}

std::vector<ReadRecord> DiskQueue::read_records(std::size_t max_records, std::size_t max_bytes) {
  std::vector<ReadRecord> out;
  std::size_t bytes = 0;
  while (out.size() < max_records && (out.empty() || bytes < max_bytes)) {
    ReadRecord record;
    std::int64_t bad_file = 0;
    std::uint64_t bad_generation = 0;
    ReadStep step;
    {
      std::lock_guard read_lock(read_mu_);
      step = read_one(record, bad_file, bad_generation);
    }
    if (step == ReadStep::record) {
      bytes += record.data.size();
      out.push_back(std::move(record));
    } else if (step == ReadStep::bad_segment) {
      // Writer-side work: runs without read_mu_, which the control op takes.
      if (control(OpKind::bad_segment, bad_file, bad_generation)) break;
    } else if (step == ReadStep::empty) {
      break;
    }
  }
  return out;
}

DiskQueue::ReadStep DiskQueue::read_one(ReadRecord& out, std::int64_t& bad_file,
                                        std::uint64_t& bad_generation) {
  std::int64_t rnum, rpos, wnum, wpos;
  std::uint64_t gen;
  {
    std::lock_guard lock(mu_);
    if (closed_) return ReadStep::empty;
    rnum = read_file_num_;
    rpos = read_pos_;
    wnum = write_file_num_;
    wpos = write_pos_;
    gen = generation_;
  }
  if (rnum > wnum || (rnum == wnum && rpos > wpos)) {
    bad_file = -1;
    bad_generation = gen;
    return ReadStep::bad_segment;
  }
  if (rnum == wnum && rpos == wpos) return ReadStep::empty;

  auto bad = [&] {
    bad_file = rnum;
    bad_generation = gen;
    return ReadStep::bad_segment;
  };

  if (buf_generation_ != gen || read_fd_num_ != rnum) {
    close_read_file();
    buf_generation_ = gen;
    read_fd_ = ::open(segment_path(rnum).c_str(), O_RDONLY | O_CLOEXEC);
    if (read_fd_ < 0) {
      log(LogLevel::error, "failed to open " + segment_path(rnum).string() + " for reading - " +
                               ec_text(file_io::errno_code()));
      return bad();
    }
    read_fd_num_ = rnum;
    read_fd_end_ = -1;
  }

  std::int64_t end = wpos;
  if (rnum < wnum) {
    // A finished segment ends where its file ends (which may be past the
    // checkpointed position after an unclean stop).
    if (read_fd_end_ < 0) {
      struct stat st;
      if (::fstat(read_fd_, &st) != 0) return bad();
      read_fd_end_ = st.st_size;
    }
    end = read_fd_end_;
    if (rpos >= end) {
      std::lock_guard lock(mu_);
      if (generation_ != gen || read_file_num_ != rnum) return ReadStep::retry;
      close_read_file();
      read_file_num_ = rnum + 1;
      read_pos_ = 0;
      if (options_.manual_read_commit) {
        // Deleted once the commit passes it (checkpoint_locked).
        segment_finished_locked(rnum);
      } else {
        ::unlink(segment_path(rnum).c_str());
        request_checkpoint_locked();  // never leave the checkpoint naming a deleted file
      }
      return ReadStep::retry;
    }
  }

  if (rpos + 4 > end || !fill_buffer(rpos, 4, end)) {
    log(LogLevel::error, "truncated record header at " + std::to_string(rpos) + " in " +
                             segment_path(rnum).string());
    return bad();
  }
  std::int64_t len = detail::get_u32be(buf_.data() + (rpos - buf_start_));
  if (len < options_.min_msg_size || len > options_.max_msg_size) {
    log(LogLevel::error, "invalid record size " + std::to_string(len) + " at " +
                             std::to_string(rpos) + " in " + segment_path(rnum).string());
    return bad();
  }
  if (rpos + 4 + len > end || !fill_buffer(rpos + 4, static_cast<std::size_t>(len), end)) {
    log(LogLevel::error, "truncated record at " + std::to_string(rpos) + " in " +
                             segment_path(rnum).string());
    return bad();
  }
  out.data.assign(buf_.data() + (rpos + 4 - buf_start_), static_cast<std::size_t>(len));

  std::lock_guard lock(mu_);
  if (generation_ != gen || read_file_num_ != rnum || read_pos_ != rpos) return ReadStep::retry;
  read_pos_ = rpos + 4 + len;
  // A checkpoint that undercounted (one that failed to parse counts 0) must
  // not make depth negative; reaching the writer makes it exact again.
  if (depth_ > 0) --depth_;
  ++read_seq_;
  out.token = {rnum, read_pos_, read_seq_, commit_epoch_};
  if (!options_.manual_read_commit) {
    committed_seq_ = read_seq_;
    count_op_locked(1);
  }
  if (read_file_num_ == write_file_num_ && read_pos_ == write_pos_ && depth_ != 0) {
    log(LogLevel::error, "read reached write position with depth " + std::to_string(depth_) +
                             " - resetting to 0");
    depth_ = 0;
  }
  return ReadStep::record;
}

// Makes buf_ hold [pos, pos + need) of the open segment, reading no further
// than `end` (bytes past it may still change).
bool DiskQueue::fill_buffer(std::int64_t pos, std::size_t need, std::int64_t end) {
  if (buf_num_ == read_fd_num_ && pos >= buf_start_ &&
      pos + static_cast<std::int64_t>(need) <= buf_start_ + static_cast<std::int64_t>(buf_len_)) {
    return true;
  }
  std::size_t want = std::max(need, kReadChunk);
  want = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(want), end - pos));
  if (want < need) return false;
  if (buf_.size() < want) buf_.resize(want);
  if (file_io::pread_full(read_fd_, buf_.data(), want, pos)) {
    reset_read_buffer();
    return false;
  }
  buf_num_ = read_fd_num_;
  buf_start_ = pos;
  buf_len_ = want;
  return true;
}

void DiskQueue::close_read_file() {
  if (read_fd_ >= 0) ::close(read_fd_);
  read_fd_ = -1;
  read_fd_num_ = -1;
  reset_read_buffer();
}

void DiskQueue::reset_read_buffer() {
  buf_num_ = -1;
  buf_start_ = 0;
  buf_len_ = 0;
}

bool DiskQueue::wait_readable(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  auto has_data = [&] { return closed_ || has_data_locked(); };
  ++read_waiters_;
  bool ready = readable_cv_.wait_for(lock, timeout, has_data);
  --read_waiters_;
  return ready && !closed_;
}

void DiskQueue::notify_when_readable(std::function<void()> callback) {
  std::unique_lock lock(mu_);
  if (closed_) return;
  if (has_data_locked()) {
    lock.unlock();
    callback();
    return;
  }
  on_readable_ = std::move(callback);
}

// Wakes the reader outside the lock, so it does not wake only to block on mu_.
void DiskQueue::fire_readable(std::unique_lock<std::mutex>& lock) {
  bool notify = read_waiters_ > 0;
  auto callback = std::move(on_readable_);
  on_readable_ = nullptr;
  if (!notify && !callback) return;
  lock.unlock();
  if (notify) readable_cv_.notify_all();
  if (callback) callback();
  lock.lock();
}

// ---------------------------------------------------------------------------
// Read commits (manual_read_commit)

std::error_code DiskQueue::commit_read(const ReadToken& token) {
  if (!options_.manual_read_commit) return {};
  std::lock_guard lock(mu_);
  if (closed_) return make_error_code(errc::exiting);
  if (token.epoch != commit_epoch_ || token.seq <= committed_seq_) return {};
  if (token.seq > read_seq_) return make_error_code(errc::invalid_token);
  std::int64_t from_file = commit_file_num_;
  auto committed = static_cast<std::int64_t>(token.seq - committed_seq_);
  committed_seq_ = token.seq;
  if (token.file_num > commit_file_num_ ||
      (token.file_num == commit_file_num_ && token.pos > commit_pos_)) {
    commit_file_num_ = token.file_num;
    commit_pos_ = token.pos;
  }
  advance_commit_locked();
  count_op_locked(committed);
  // Leaving a segment: checkpoint soon, which deletes it.
  if (commit_file_num_ != from_file) request_checkpoint_locked();
  return {};
}

// The reader left `file_num` after reading records up to read_seq_.
void DiskQueue::segment_finished_locked(std::int64_t file_num) {
  if (!options_.manual_read_commit) return;
  finished_.emplace_back(file_num, read_seq_);
  std::int64_t from_file = commit_file_num_;
  advance_commit_locked();
  if (commit_file_num_ != from_file) request_checkpoint_locked();
}

// A segment the reader left whose every read record is committed is done:
// the commit moves to the start of the next one, so the file can go.
void DiskQueue::advance_commit_locked() {
  while (!finished_.empty() && finished_.front().second <= committed_seq_) {
    if (finished_.front().first >= commit_file_num_) {
      commit_file_num_ = finished_.front().first + 1;
      commit_pos_ = 0;
    }
    finished_.pop_front();
  }
}

void DiskQueue::reset_commit_locked() {
  commit_file_num_ = read_file_num_;
  commit_pos_ = read_pos_;
  committed_seq_ = read_seq_;
  finished_.clear();
  ++commit_epoch_;
}

}  // namespace nsq::diskqueue
