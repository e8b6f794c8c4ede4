#include "output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nsq::to_file {
namespace {

// Larger than this, the buffer is written out at once.
constexpr std::size_t kBufferLimit = 64 * 1024;

}  // namespace

OutputFile::OutputFile(int fd, std::filesystem::path path, int gzip_level, int64_t initial_size)
    : fd_(fd), path_(std::move(path)), size_(initial_size) {
  if (gzip_level > 0) gzip_ = std::make_unique<GzipEncoder>(gzip_level);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string OutputFile::error(std::string_view what, int err) const {
  return std::string(what) + " " + path_.string() + ": " + std::strerror(err);
}

tl::expected<void, std::string> OutputFile::write(std::string_view data) {
  if (gzip_) {
    gzip_->write(data, &buffer_);
  } else {
    buffer_.append(data);
  }
  size_ += static_cast<int64_t>(data.size());
  if (buffer_.size() >= kBufferLimit) return flush_buffer();
  return {};
}

tl::expected<void, std::string> OutputFile::flush_buffer() {
  std::size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(error("write", errno));
    }
    done += static_cast<std::size_t>(n);
  }
  buffer_.clear();
  return {};
}

tl::expected<void, std::string> OutputFile::sync() {
  // An empty member is only worth writing when the file would otherwise
  // hold none (an empty file is not valid gzip).
  if (gzip_ && (gzip_->member_has_input() || !gzip_member_written_)) {
    gzip_->finish_member(&buffer_);
    gzip_member_written_ = true;
  }
  if (auto flushed = flush_buffer(); !flushed) return flushed;
  if (::fsync(fd_) != 0) return tl::unexpected(error("fsync", errno));
  return {};
}

tl::expected<void, std::string> OutputFile::close() {
  if (auto synced = sync(); !synced) return synced;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return tl::unexpected(error("close", errno));
  return {};
}

}  // namespace nsq::to_file
