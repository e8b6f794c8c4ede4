#include "nsq/parse.h"

#include <limits>

namespace nsq {

std::optional<uint64_t> parse_decimal_digits(std::string_view s) noexcept {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<uint64_t>(c - '0');
    if (n > (kMax - d) / 10) return std::nullopt;
    n = n * 10 + d;
  }
  return n;
}

}  // namespace nsq
