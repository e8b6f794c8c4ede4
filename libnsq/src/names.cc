#include "nsq/names.h"

namespace nsq {
namespace {

constexpr bool is_name_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool is_valid_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  if (name.ends_with(kEphemeralSuffix)) name.remove_suffix(kEphemeralSuffix.size());
  if (name.empty()) return false;  // "#ephemeral" alone: the regex needs one char first
  for (char c : name) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

}  // namespace

bool is_valid_topic_name(std::string_view name) noexcept { return is_valid_name(name); }

bool is_valid_channel_name(std::string_view name) noexcept { return is_valid_name(name); }

bool is_ephemeral(std::string_view name) noexcept { return name.ends_with(kEphemeralSuffix); }

}  // namespace nsq
