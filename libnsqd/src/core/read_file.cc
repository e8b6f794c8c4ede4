#include "core/read_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <system_error>

namespace nsq::nsqd {
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
