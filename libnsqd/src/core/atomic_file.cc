#include "core/atomic_file.h"

#include <cctype>
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

namespace {

// Go's *PathError text: "<op> <path>: <errno text>", which Go spells in
// lower case ("permission denied" where strerror says "Permission denied").
std::string path_error(const char* op, const std::filesystem::path& path, int err) {
  std::string text = std::generic_category().message(err);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return std::string(op) + " " + path.string() + ": " + text;
}

}  // namespace

tl::expected<std::optional<std::string>, std::string> read_file_if_exists(
    const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    return tl::unexpected(path_error("open", path, errno));
  }
  std::string content;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return tl::unexpected(path_error("read", path, err));
    }
    if (n == 0) break;
    content.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

}  // namespace nsq::nsqd
