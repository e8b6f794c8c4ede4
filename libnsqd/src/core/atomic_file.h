#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace nsq::nsqd {

// Writes `path` as NSQ does: "<path>.<random>.tmp" (mode 0600), fsync,
// rename over `path`.
std::error_code write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace nsq::nsqd
