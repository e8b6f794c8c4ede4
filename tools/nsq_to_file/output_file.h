#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "gzip_encoder.h"

namespace nsq::to_file {

// One open output file: bytes go through an optional gzip encoder into a
// user-space buffer (written out when large, at sync and at close). Nothing
// is promised durable before sync() returns, which is why nsq_to_file FINs
// only after it.
//
// @par Thread Safety: none; owned by one topic's router thread.
class OutputFile {
 public:
  // Takes ownership of fd (opened for writing). gzip_level 0 = plain.
  // initial_size: bytes already in the file (append mode).
  OutputFile(int fd, std::filesystem::path path, int gzip_level, int64_t initial_size);
  // Closes the fd without syncing (close() is the orderly end).
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Hands data to the file; counts it (uncompressed) in size().
  tl::expected<void, std::string> write(std::string_view data);
  // Makes everything written so far durable: ends the gzip member, writes
  // the buffer, fsync.
  tl::expected<void, std::string> sync();
  // sync() and close; the file is left a complete gzip stream.
  tl::expected<void, std::string> close();

  const std::filesystem::path& path() const { return path_; }
  // Bytes handed to write() (uncompressed) plus the initial size.
  int64_t size() const { return size_; }

 private:
  tl::expected<void, std::string> flush_buffer();
  std::string error(std::string_view what, int err) const;

  int fd_ = -1;
  std::filesystem::path path_;
  std::unique_ptr<GzipEncoder> gzip_;
  bool gzip_member_written_ = false;  // the file holds at least one complete member
  std::string buffer_;
  int64_t size_ = 0;
};

}  // namespace nsq::to_file
