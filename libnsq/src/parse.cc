#include "nsq/parse.h"

namespace nsq {

std::optional<uint64_t> parse_decimal_digits(std::string_view s) noexcept {
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');  // unsigned: wraps as Go's does
  }
  return n;
}

}  // namespace nsq
