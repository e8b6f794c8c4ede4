#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <tl/expected.hpp>

// Reading nsqd.dat as Go nsqd does (it is written by
// diskqueue::write_file_atomic, diskqueue/atomic_file.h).
namespace nsq::nsqd {

// The whole of `path`, as Go's os.ReadFile: nullopt when it does not exist
// (ENOENT only: a file that cannot be opened or read for any other reason is
// not "no file"); else an error in Go's words for the call that failed,
// e.g. "open <path>: permission denied" or "read <path>: is a directory".
tl::expected<std::optional<std::string>, std::string> read_file_if_exists(
    const std::filesystem::path& path);

}  // namespace nsq::nsqd
