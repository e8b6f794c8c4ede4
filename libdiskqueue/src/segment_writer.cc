#include "segment_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "diskqueue/zero_fill.h"
#include "file_io.h"
#include "record_format.h"

namespace nsq::diskqueue {

SegmentWriter::SegmentWriter(const Options& options, const QueueFiles& files, const QueueLog& log,
                             QueueState& state, Checkpointer& checkpointer,
                             ReadableSignal& readable)
    : options_(options),
      files_(files),
      log_(log),
      state_(state),
      checkpointer_(checkpointer),
      readable_(readable) {}

// The writer role changes write_file_num, write_pos and write_file only
// under the lock, and reads them without it.
std::error_code SegmentWriter::write_records(std::unique_lock<std::mutex>& lock,
                                             std::string_view data, std::int64_t records) {
  lock.unlock();
  std::error_code ec;
  while (!data.empty()) {
    std::int64_t pos = state_.write_pos;
    std::size_t take = 0;
    std::int64_t count = 0;
    if (pos + static_cast<std::int64_t>(data.size()) <= options_.max_bytes_per_file) {
      take = data.size();
      count = records;
    } else {
      // A record never crosses the limit, except the first of a segment.
      while (take < data.size()) {
        std::int64_t total = 4 + std::int64_t{record_format::get_u32be(data.data() + take)};
        std::int64_t at = pos + static_cast<std::int64_t>(take);
        if (at > 0 && at + total > options_.max_bytes_per_file) break;
        take += static_cast<std::size_t>(total);
        ++count;
      }
    }
    if (take > 0) {
      ec = flush(lock, data.substr(0, take), count);
      if (ec) break;
      data.remove_prefix(take);
      records -= count;
    }
    if (!data.empty()) {
      ec = roll_segment(lock);
      if (ec) break;
    }
  }
  lock.lock();
  return ec;
}

bool SegmentWriter::fits_without_waiting_locked(std::int64_t bytes) const {
  if (state_.write_pos > 0 && state_.write_pos + bytes > options_.max_bytes_per_file) return false;
  return !preallocating() ||
         (state_.write_file && state_.write_pos + bytes <= state_.write_file->filled_to);
}

void SegmentWriter::close_locked() {
  if (state_.write_file) cut_fill(*state_.write_file, state_.write_pos);
  state_.write_file.reset();
}

// Writes `data` at the write position and publishes it to the reader.
// Unlocked on entry and exit.
std::error_code SegmentWriter::flush(std::unique_lock<std::mutex>& lock, std::string_view data,
                                     std::int64_t records) {
  std::int64_t start = state_.write_pos;
  if (!state_.write_file) {
    std::string path = files_.segment_path(state_.write_file_num).string();
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
      std::error_code ec = file_io::errno_code();
      log_(LogLevel::error, "failed to open " + path + " - " + ec.message());
      return ec;
    }
    auto file = std::make_shared<OpenSegment>(fd, std::move(path));
    struct stat st;
    file->filled_to = ::fstat(fd, &st) == 0 ? st.st_size : start;
    lock.lock();
    state_.write_file = std::move(file);
    lock.unlock();
  }
  OpenSegment& file = *state_.write_file;
  std::error_code ec;
  if (preallocating()) {  // records are at least 1 byte: data.size() > 4
    fill_ahead(file, start + static_cast<std::int64_t>(data.size()));
    // Over zeros, a write a crash cut short would read as a header and a
    // body that ends in zeros, a whole record. With the group's first
    // header written last, it stays zero until everything behind it is in
    // place, and reopening cuts the group (recovery.cc, cut_unfinished_tail).
    // (The header is copied to an aligned buffer so that its source cannot
    // straddle two memory pages and be copied in two steps.)
    alignas(4) char header[4];
    std::memcpy(header, data.data(), 4);
    ec = file_io::pwrite_full(file.fd, data.substr(4), start + 4);
    if (!ec) ec = file_io::pwrite_full(file.fd, std::string_view(header, 4), start);
  } else {
    ec = file_io::pwrite_full(file.fd, data, start);
  }
  if (ec) {
    log_(LogLevel::error, "failed to write " + file.path + " - " + ec.message());
    // Drop the partial record so a crash now cannot leave half a record
    // behind the checkpoint; the next put rewrites from the write position.
    if (::ftruncate(file.fd, start) != 0) {
      log_(LogLevel::warn, "failed to truncate " + file.path);
    }
    lock.lock();
    state_.write_file.reset();
    lock.unlock();
    return ec;
  }
  lock.lock();
  state_.write_pos = start + static_cast<std::int64_t>(data.size());
  state_.depth += records;
  checkpointer_.count_ops_locked(records);
  readable_.fire(lock);
  lock.unlock();
  return {};
}

// Unlocked on entry and exit.
std::error_code SegmentWriter::roll_segment(std::unique_lock<std::mutex>& lock) {
  auto meta_lock = checkpointer_.lock();
  if (state_.write_file) cut_fill(*state_.write_file, state_.write_pos);
  if (state_.write_file && ::fdatasync(state_.write_file->fd) != 0) {
    std::error_code ec = file_io::errno_code();
    log_(LogLevel::error, "failed to sync " + state_.write_file->path + " - " + ec.message());
    lock.lock();
    state_.write_file.reset();
    lock.unlock();
    return ec;
  }
  lock.lock();
  state_.write_file.reset();
  ++state_.write_file_num;
  state_.write_pos = 0;
  lock.unlock();
  return checkpointer_.checkpoint_locked();
}

bool SegmentWriter::preallocating() const noexcept {
  return options_.preallocate_bytes > 0 && options_.min_msg_size >= 1;
}

// A failure is not an error of the put: the write that follows meets the
// same condition (a full disk) and reports it. Zeros go only past the write
// position (everything before it is acknowledged records), and filled_to
// counts what a fill cut short did write, so that no later fill starts
// below records written since.
void SegmentWriter::fill_ahead(OpenSegment& file, std::int64_t end) {
  std::int64_t from = std::max(file.filled_to, state_.write_pos);
  if (end <= from) return;
  std::int64_t to =
      std::max(end, std::min(end + options_.preallocate_bytes, options_.max_bytes_per_file));
  file.filled_to = from + write_zeros(file.fd, from, to - from).written;
}

// Leaves the file ending at `end`, as NSQ writes it.
void SegmentWriter::cut_fill(OpenSegment& file, std::int64_t end) {
  if (file.filled_to <= end) return;
  if (::ftruncate(file.fd, end) != 0) {
    log_(LogLevel::warn, "failed to cut the preallocated tail of " + file.path + " - " +
                             file_io::errno_code().message());
    return;
  }
  file.filled_to = end;
}

}  // namespace nsq::diskqueue
