#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

// Thin POSIX helpers: whole-buffer pread/pwrite that retry short transfers and
// EINTR, and report errno as std::error_code. (The atomic file replacement
// and the zero fill are public: diskqueue/atomic_file.h, diskqueue/zero_fill.h.)
namespace nsq::diskqueue::file_io {

std::error_code errno_code();

// Reads exactly `size` bytes at `offset`; a short file is reported as
// std::errc::io_error (the caller treats it as a truncated segment).
std::error_code pread_full(int fd, char* out, std::size_t size, std::int64_t offset);

std::error_code pwrite_full(int fd, std::string_view data, std::int64_t offset);

// Reads a whole (small) file. ENOENT is returned as is so callers can tell "missing".
std::error_code read_small_file(const std::filesystem::path& path, std::string& out);

}  // namespace nsq::diskqueue::file_io
