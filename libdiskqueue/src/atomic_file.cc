#include "diskqueue/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <random>
#include <string>

#include "file_io.h"

namespace nsq::diskqueue {

std::error_code write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                  std::uint32_t tmp_suffix) {
  std::string tmp = path.string() + "." + std::to_string(tmp_suffix) + ".tmp";
  int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return file_io::errno_code();
  std::error_code ec = file_io::pwrite_full(fd, content, 0);
  if (!ec && ::fsync(fd) != 0) ec = file_io::errno_code();
  if (::close(fd) != 0 && !ec) ec = file_io::errno_code();
  if (!ec && ::rename(tmp.c_str(), path.c_str()) != 0) ec = file_io::errno_code();
  if (ec) ::unlink(tmp.c_str());
  return ec;
}

std::error_code write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  return write_file_atomic(path, content, std::random_device{}());
}

}  // namespace nsq::diskqueue
