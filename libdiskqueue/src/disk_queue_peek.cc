// DiskQueue::peek_each: reading ahead of the reader without moving it.
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "disk_queue_impl.h"
#include "diskqueue/disk_queue.h"
#include "record_format.h"

namespace nsq::diskqueue {
namespace {

// A read-only descriptor, closed on scope exit.
struct ReadOnlyFile {
  explicit ReadOnlyFile(const std::filesystem::path& p)
      : fd(::open(p.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~ReadOnlyFile() {
    if (fd >= 0) ::close(fd);
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;
  int fd;
};

bool pread_exact(int fd, char* out, std::size_t n, std::int64_t at) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, out, n, at);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<std::size_t>(got);
    at += got;
  }
  return true;
}

}  // namespace

std::size_t DiskQueue::peek_each(std::size_t max_records, std::size_t max_bytes,
                                 const std::function<void(std::string_view)>& each) const {
  const Positions p = impl_->positions();
  const Options& o = impl_->options();
  std::int64_t file_num = p.read_file_num;
  std::int64_t pos = p.read_pos;
  std::size_t seen = 0;
  std::size_t bytes = 0;
  std::string payload;
  while (seen < max_records && bytes < max_bytes) {
    if (file_num > p.write_file_num || (file_num == p.write_file_num && pos >= p.write_pos)) break;
    ReadOnlyFile file(segment_path(file_num));
    if (file.fd < 0) break;  // removed: the reader went past it
    // The current segment ends at the write position; an older one where
    // its records end (EOF or the zero fill of a preallocated file).
    const std::int64_t end = file_num == p.write_file_num
                                 ? p.write_pos
                                 : static_cast<std::int64_t>(::lseek(file.fd, 0, SEEK_END));
    while (seen < max_records && bytes < max_bytes && pos + record_format::kHeaderSize <= end) {
      char header[record_format::kHeaderSize];
      if (!pread_exact(file.fd, header, sizeof header, pos)) return seen;
      const auto size = static_cast<std::int64_t>(record_format::get_u32be(header));
      if (size == 0 && file_num != p.write_file_num) break;  // preallocated zeros: segment done
      if (size < o.min_msg_size || size > o.max_msg_size) return seen;
      if (pos + record_format::kHeaderSize + size > end) return seen;
      payload.resize(static_cast<std::size_t>(size));
      if (!pread_exact(file.fd, payload.data(), payload.size(), pos + record_format::kHeaderSize)) {
        return seen;
      }
      each(payload);
      ++seen;
      bytes += payload.size();
      pos += record_format::kHeaderSize + size;
    }
    if (file_num == p.write_file_num) break;
    ++file_num;
    pos = 0;
  }
  return seen;
}

}  // namespace nsq::diskqueue
