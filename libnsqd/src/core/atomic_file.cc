#include "core/atomic_file.h"

#include <cerrno>
#include <fcntl.h>
#include <random>
#include <unistd.h>

namespace nsq::nsqd {

std::error_code write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  std::string tmp = path.string() + "." + std::to_string(std::random_device{}()) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return {errno, std::generic_category()};
  std::error_code ec;
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      ec = {errno, std::generic_category()};
      break;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  if (!ec && ::fsync(fd) != 0) ec = {errno, std::generic_category()};
  if (::close(fd) != 0 && !ec) ec = {errno, std::generic_category()};
  if (!ec && ::rename(tmp.c_str(), path.c_str()) != 0) ec = {errno, std::generic_category()};
  if (ec) ::unlink(tmp.c_str());
  return ec;
}

}  // namespace nsq::nsqd
