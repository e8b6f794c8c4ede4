#include "nsq/utf8.h"

namespace nsq::utf8 {
namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";

constexpr bool is_continuation(unsigned char c) noexcept { return c >= 0x80 && c <= 0xbf; }

}  // namespace

std::size_t sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const std::size_t left = s.size() - i;
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return left >= 2 && is_continuation(b(1)) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (left < 3) return 0;
    // E0 would be overlong below A0; ED is a surrogate above 9F.
    const unsigned char lo = c == 0xe0 ? 0xa0 : 0x80;
    const unsigned char hi = c == 0xed ? 0x9f : 0xbf;
    return b(1) >= lo && b(1) <= hi && is_continuation(b(2)) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (left < 4) return 0;
    // F0 would be overlong below 90; F4 goes past U+10FFFF above 8F.
    const unsigned char lo = c == 0xf0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xf4 ? 0x8f : 0xbf;
    return b(1) >= lo && b(1) <= hi && is_continuation(b(2)) && is_continuation(b(3)) ? 4 : 0;
  }
  return 0;
}

bool valid(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string sanitize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    if (n == 0) {
      out.append(kReplacement);
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace nsq::utf8
