#include "file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace nsq::diskqueue::file_io {

std::error_code errno_code() { return {errno, std::generic_category()}; }

std::error_code pread_full(int fd, char* out, std::size_t size, std::int64_t offset) {
  while (size > 0) {
    ssize_t n = ::pread(fd, out, size, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_code();
    }
    if (n == 0) return std::make_error_code(std::errc::io_error);
    out += n;
    size -= static_cast<std::size_t>(n);
    offset += n;
  }
  return {};
}

std::error_code pwrite_full(int fd, std::string_view data, std::int64_t offset) {
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_code();
    }
    data.remove_prefix(static_cast<std::size_t>(n));
    offset += n;
  }
  return {};
}

std::error_code read_small_file(const std::filesystem::path& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_code();
  out.clear();
  char chunk[4096];
  std::error_code ec;
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      ec = errno_code();
      break;
    }
    if (n == 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
    if (out.size() > (1 << 20)) break;  // a meta file is three short lines
  }
  ::close(fd);
  return ec;
}

}  // namespace nsq::diskqueue::file_io
