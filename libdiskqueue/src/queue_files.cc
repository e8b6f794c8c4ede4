#include "queue_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string_view>
#include <system_error>

namespace nsq::diskqueue {

QueueFiles::QueueFiles(std::filesystem::path dir, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)) {}

std::filesystem::path QueueFiles::segment_path(std::int64_t file_num) const {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".diskqueue.%06lld.dat", static_cast<long long>(file_num));
  return dir_ / (name_ + suffix);
}

std::filesystem::path QueueFiles::meta_path() const {
  return dir_ / (name_ + ".diskqueue.meta.dat");
}

std::vector<std::int64_t> QueueFiles::segment_numbers() const {
  std::string prefix = name_ + ".diskqueue.";
  std::vector<std::int64_t> nums;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    std::string file = entry.path().filename().string();
    if (!file.starts_with(prefix) || !file.ends_with(".dat")) continue;
    std::string_view digits(file);
    digits = digits.substr(prefix.size(), digits.size() - prefix.size() - 4);
    std::int64_t n = 0;
    auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (err != std::errc() || end != digits.data() + digits.size() || digits.empty()) continue;
    nums.push_back(n);
  }
  std::sort(nums.begin(), nums.end());
  return nums;
}

bool QueueFiles::segment_exists(std::int64_t file_num) const {
  struct stat st;
  return ::stat(segment_path(file_num).c_str(), &st) == 0;
}

void QueueFiles::remove_segments(std::int64_t first, std::int64_t last) const {
  for (std::int64_t n : segment_numbers()) {
    if (n >= first && n <= last) ::unlink(segment_path(n).c_str());
  }
}

void QueueFiles::remove_segments_below(std::int64_t file_num) const {
  for (std::int64_t num = file_num - 1; num >= 0; --num) {
    if (::unlink(segment_path(num).c_str()) != 0) break;
  }
}

}  // namespace nsq::diskqueue
