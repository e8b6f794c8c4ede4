#include "file_io.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
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

namespace {
constexpr std::size_t kZeroBlock = 64 * 1024;
const char* zero_block() {
  static const std::string zeros(kZeroBlock, '\0');
  return zeros.data();
}
}  // namespace

ZeroFill write_zeros(int fd, std::int64_t offset, std::int64_t size) {
  // One pwritev of up to 16 references to the same zero block per step.
  constexpr int kMaxIov = 16;
  iovec iov[kMaxIov];
  ZeroFill done;
  while (size > 0) {
    int n = 0;
    std::int64_t step = 0;
    while (n < kMaxIov && step < size) {
      auto len = static_cast<std::size_t>(std::min<std::int64_t>(kZeroBlock, size - step));
      iov[n++] = iovec{const_cast<char*>(zero_block()), len};
      step += static_cast<std::int64_t>(len);
    }
    ssize_t w = ::pwritev(fd, iov, n, offset);
    if (w < 0) {
      if (errno == EINTR) continue;
      done.ec = errno_code();
      return done;
    }
    offset += w;
    size -= w;
    done.written += w;
  }
  return done;
}

bool all_zero(int fd, std::int64_t from, std::int64_t to) {
  std::string buf(kZeroBlock, '\0');
  while (from < to) {
    auto want = static_cast<std::size_t>(std::min<std::int64_t>(kZeroBlock, to - from));
    if (pread_full(fd, buf.data(), want, from)) return false;
    if (std::memcmp(buf.data(), zero_block(), want) != 0) return false;
    from += static_cast<std::int64_t>(want);
  }
  return true;
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
