#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <tl/expected.hpp>

// nsqd.dat's file I/O, as Go nsqd does it.
namespace nsq::nsqd {

// Writes `path` as NSQ does: "<path>.<random>.tmp" (mode 0600), fsync,
// rename over `path`.
std::error_code write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The whole of `path`, as Go's os.ReadFile: nullopt when it does not exist
// (ENOENT only: a file that cannot be opened or read for any other reason is
// not "no file"); else an error in Go's words for the call that failed,
// e.g. "open <path>: permission denied" or "read <path>: is a directory".
tl::expected<std::optional<std::string>, std::string> read_file_if_exists(
    const std::filesystem::path& path);

}  // namespace nsq::nsqd
