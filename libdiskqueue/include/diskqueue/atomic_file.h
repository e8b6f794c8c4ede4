#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace nsq::diskqueue {

// Replaces `path` with `content` as go-diskqueue writes its meta file and Go
// nsqd its nsqd.dat: a sibling "<path>.<tmp_suffix>.tmp" (mode 0600) is
// written, fsynced, closed and renamed over `path`, so a reader or a crash
// sees the old file or the new one, never part of one; on failure the
// temporary file is removed and `path` is left as it was. The directory is
// not fsynced (neither Go program does): a power cut may undo the rename.
// Errors carry errno in std::generic_category().
std::error_code write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                  std::uint32_t tmp_suffix);

// The same with a fresh random suffix (std::random_device).
std::error_code write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace nsq::diskqueue
