#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace nsq {

// Numeric command parameters (RDY count, REQ/DPUB timeout): ASCII digits only,
// no sign, and the EMPTY string is 0 (nsqd's rule). nullopt on any other byte
// or when the value does not fit in 64 bits (Go nsqd silently wraps; we refuse).
std::optional<uint64_t> parse_decimal_digits(std::string_view s) noexcept;

}  // namespace nsq
