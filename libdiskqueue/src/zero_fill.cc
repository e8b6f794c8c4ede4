#include "diskqueue/zero_fill.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "file_io.h"

namespace nsq::diskqueue {

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
      done.ec = file_io::errno_code();
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
    if (file_io::pread_full(fd, buf.data(), want, from)) return false;
    if (std::memcmp(buf.data(), zero_block(), want) != 0) return false;
    from += static_cast<std::int64_t>(want);
  }
  return true;
}

}  // namespace nsq::diskqueue
