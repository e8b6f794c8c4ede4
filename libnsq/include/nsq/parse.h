#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace nsq {

// Numeric command parameters (RDY count, REQ/DPUB timeout): ASCII digits only,
// no sign, and the EMPTY string is 0 (nsqd's rule). nullopt on any other byte.
// A value past 64 bits wraps around, as in Go nsqd (whose answers to such
// values, e.g. "RDY count -1 out of range", clients may see).
std::optional<uint64_t> parse_decimal_digits(std::string_view s) noexcept;

// A timeout parameter in milliseconds as Go nsqd turns it into a duration:
// the count converted to a signed 64-bit number of nanoseconds, wrapping
// (so 2^64-1 ms is -1 ms, and 2^64 ms is 0).
inline int64_t go_millis_to_nanos(uint64_t ms) noexcept {
  return static_cast<int64_t>(ms * 1000000u);
}

}  // namespace nsq
