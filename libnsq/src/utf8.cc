#include "utf8.h"

#include <cstddef>

namespace nsq::detail {
namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";

bool is_cont(unsigned char c) noexcept { return c >= 0x80 && c <= 0xbf; }

// Length of the valid sequence starting at s[i], or 0 (the rules of Go's
// utf8.DecodeRune: no overlongs, surrogates or code points above U+10FFFF).
std::size_t valid_sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const std::size_t left = s.size() - i;
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return left >= 2 && is_cont(b(1)) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (left < 3) return 0;
    const unsigned char lo = c == 0xe0 ? 0xa0 : 0x80;
    const unsigned char hi = c == 0xed ? 0x9f : 0xbf;
    return b(1) >= lo && b(1) <= hi && is_cont(b(2)) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (left < 4) return 0;
    const unsigned char lo = c == 0xf0 ? 0x90 : 0x80;
    const unsigned char hi = c == 0xf4 ? 0x8f : 0xbf;
    return b(1) >= lo && b(1) <= hi && is_cont(b(2)) && is_cont(b(3)) ? 4 : 0;
  }
  return 0;
}

}  // namespace

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = valid_sequence_length(s, i);
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

}  // namespace nsq::detail
