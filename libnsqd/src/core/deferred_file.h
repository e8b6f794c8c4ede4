#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "core/message.h"

// When a channel's deferred messages are due, kept across a restart (issue
// 21; docs/operations.md). The messages themselves go to the channel's disk
// queue at shutdown, as in Go nsqd (so a Go nsqd on the same directory still
// delivers them, at once); this side file, which Go ignores, holds each one's
// due time: "<message id> <due, Unix ms>\n" per message.
namespace nsq::nsqd::deferred_file {

// NAME.diskqueue.deferred.dat beside the queue's NAME.diskqueue.meta.dat.
std::filesystem::path path_for(const std::filesystem::path& meta_path);

struct Entry {
  MessageId id{};
  std::int64_t due_unix_ms = 0;
};

std::string encode(const std::vector<Entry>& entries);
// Lines that do not parse are skipped (a truncated last line, stray bytes).
std::vector<Entry> decode(std::string_view text);

}  // namespace nsq::nsqd::deferred_file
