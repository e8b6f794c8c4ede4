#include "recovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "diskqueue/zero_fill.h"
#include "file_io.h"
#include "meta_file.h"
#include "record_format.h"

namespace nsq::diskqueue {
namespace {

// Recovery looks this many segments past the checkpoint's write segment.
constexpr std::int64_t kMaxSegmentsPastCheckpoint = 1000;

struct RecordWalk {
  std::int64_t end;    // just past the last whole valid record
  std::int64_t count;  // records walked
};

// Whole records with valid sizes from `from` (a record boundary) up to the
// first invalid or truncated one, in a segment of `size` bytes.
RecordWalk walk_records(const Options& options, int fd, std::int64_t from, std::int64_t size) {
  RecordWalk walk{from, 0};
  char header[4];
  while (walk.end + 4 <= size && !file_io::pread_full(fd, header, 4, walk.end)) {
    std::int64_t len = record_format::get_u32be(header);
    if (len < options.min_msg_size || len > options.max_msg_size || walk.end + 4 + len > size) {
      break;
    }
    walk.end += 4 + len;
    ++walk.count;
  }
  return walk;
}

// Past the checkpoint, what follows the last whole record of a segment a
// crash left is one of two things, and neither was ever acknowledged (an
// acknowledged record precedes everything unfinished; see
// SegmentWriter::flush):
// - zeros a preallocating queue wrote ahead;
// - a write the crash cut short (SIGKILL can stop a pwrite between pages): a
//   record running past the file end, or, over preallocated zeros, a zero
//   first header (flush writes it last) with the rest of its group behind.
// Both are cut, so that the segment reads, and is, as NSQ would have written
// it. Anything else (a nonzero invalid length) is corruption, left for the
// reader to report. The scan of segment `file_num` starts at `from`, a
// record boundary.
void cut_unfinished_tail(const Options& options, const QueueFiles& files, const QueueLog& log,
                         std::int64_t file_num, std::int64_t from) {
  if (options.min_msg_size < 1) return;  // a zero header could be a record
  std::string path = files.segment_path(file_num).string();
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > from) {
    std::int64_t pos = walk_records(options, fd, from, st.st_size).end;
    std::int64_t cut = st.st_size - pos;
    bool zeros = cut > 0 && all_zero(fd, pos, st.st_size);
    bool unfinished = false;
    char header[4];
    if (cut > 0 && !zeros) {
      if (cut < 4) {
        unfinished = true;  // a header cut short
      } else if (!file_io::pread_full(fd, header, 4, pos)) {
        std::int64_t len = record_format::get_u32be(header);
        unfinished = len == 0 || (len >= options.min_msg_size && len <= options.max_msg_size &&
                                  pos + 4 + len > st.st_size);
      }
    }
    if (zeros || unfinished) {
      std::string what = zeros ? " preallocated bytes after the last record of "
                               : " bytes of an unfinished write after the last record of ";
      if (::ftruncate(fd, pos) == 0 && ::fdatasync(fd) == 0) {
        log(zeros ? LogLevel::info : LogLevel::warn, "cut " + std::to_string(cut) + what + path);
      } else {
        log(LogLevel::warn, "failed to cut the unfinished tail of " + path + " - " +
                                file_io::errno_code().message());
      }
    }
  }
  ::close(fd);
}

}  // namespace

Recovered recover(const Options& options, const QueueFiles& files, const QueueLog& log) {
  Recovered r;
  meta_file::Meta& at = r.positions;
  const std::filesystem::path meta_path = files.meta_path();
  std::string text;
  std::error_code ec = file_io::read_small_file(meta_path, text);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    log(LogLevel::error, "failed to read metadata " + meta_path.string() + " - " + ec.message());
  } else if (!ec) {
    meta_file::Meta meta;
    if (!meta_file::parse(text, meta)) {
      log(LogLevel::error, "failed to parse metadata " + meta_path.string() +
                               " - keeping the positions read before the error, depth 0");
      meta.depth = 0;
    }
    at = meta;
  }

  // The checkpoint names a write position past the end of the write
  // segment's data (a power cut lost a tail the meta file had counted, or
  // someone cut the file): every whole record before the damage is still
  // delivered, and writing resumes after the last of them.
  struct stat write_st;
  if (::stat(files.segment_path(at.write_file_num).c_str(), &write_st) == 0 &&
      write_st.st_size < at.write_pos) {
    int fd = ::open(files.segment_path(at.write_file_num).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      std::int64_t whole = walk_records(options, fd, 0, write_st.st_size).end;
      bool same_file = at.read_file_num == at.write_file_num;
      if (same_file) at.read_pos = std::min(at.read_pos, whole);
      log(LogLevel::error, "metadata writePos " + std::to_string(at.write_pos) + " > file size " +
                               std::to_string(write_st.st_size) + " of " +
                               files.segment_path(at.write_file_num).string() +
                               " - data lost after its last whole record at " +
                               std::to_string(whole) + ", reading up to it");
      at.write_pos = whole;
      if (same_file) at.depth = walk_records(options, fd, at.read_pos, whole).count;
      ::close(fd);
    }
  }

  // A read position past the write position: the checkpoint lies about one
  // of them, and it cannot tell which. Like a checkpoint that does not
  // parse, read every segment there is from its start (at least once: some
  // records may come again) rather than drop them.
  if (at.read_file_num > at.write_file_num ||
      (at.read_file_num == at.write_file_num && at.read_pos > at.write_pos)) {
    std::vector<std::int64_t> nums = files.segment_numbers();
    std::int64_t first =
        nums.empty() ? std::max(at.read_file_num, at.write_file_num) + 1 : nums.front();
    log(LogLevel::error, "read position " + std::to_string(at.read_file_num) + "," +
                             std::to_string(at.read_pos) + " is past write position " +
                             std::to_string(at.write_file_num) + "," +
                             std::to_string(at.write_pos) + " in " + meta_path.string() +
                             " - corrupt metadata, reading every segment from " +
                             files.segment_path(first).string());
    at.read_file_num = at.write_file_num = first;
    at.read_pos = at.write_pos = 0;
    at.depth = 0;
    r.unsynced = true;
  }

  // Records appended after the last checkpoint (an unclean stop, or puts
  // made durable by their own fsync while the meta file lagged) lie past
  // write_pos, or in segments after the write segment when the checkpoint of
  // a roll failed: never overwrite them; the reader reads each old segment to
  // its end. Counting them keeps depth exact.
  std::int64_t last = at.write_file_num;
  while (last - at.write_file_num < kMaxSegmentsPastCheckpoint && files.segment_exists(last + 1)) {
    ++last;
  }
  for (std::int64_t num = at.write_file_num; num <= last; ++num) {
    cut_unfinished_tail(options, files, log, num, num == at.write_file_num ? at.write_pos : 0);
  }
  struct stat st;
  std::filesystem::path write_path = files.segment_path(at.write_file_num);
  bool tail = ::stat(write_path.c_str(), &st) == 0 && st.st_size > at.write_pos;
  if (tail || last > at.write_file_num) {
    std::int64_t extra = 0;
    for (std::int64_t num = at.write_file_num; num <= last; ++num) {
      int fd = ::open(files.segment_path(num).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      struct stat seg;
      if (::fstat(fd, &seg) == 0) {
        extra += walk_records(options, fd, num == at.write_file_num ? at.write_pos : 0, seg.st_size)
                     .count;
      }
      ::close(fd);
    }
    log(LogLevel::warn, "metadata writePos " + std::to_string(at.write_pos) + " < file size of " +
                            std::to_string(tail ? st.st_size : at.write_pos) + " in " +
                            write_path.string() + ", skipping to new file (" +
                            std::to_string(extra) + " records past the checkpoint)");
    at.depth += extra;
    at.write_file_num = last + 1;
    at.write_pos = 0;
    r.unsynced = true;
  }

  if (at.read_file_num == at.write_file_num && at.read_pos == at.write_pos && at.depth != 0) {
    log(LogLevel::error, "depth " + std::to_string(at.depth) +
                             " in metadata but the queue is empty - resetting to 0");
    at.depth = 0;
  }
  // With manual commit, segments are deleted after the checkpoint that moves
  // the commit past them; a crash in between leaves them behind the read
  // position, right below it.
  if (options.manual_read_commit) files.remove_segments_below(at.read_file_num);
  return r;
}

}  // namespace nsq::diskqueue
