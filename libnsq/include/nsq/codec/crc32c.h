#pragma once

#include <cstdint>
#include <string_view>

namespace nsq::codec {

// CRC-32C (Castagnoli), as the snappy framing format checksums its chunks.
std::uint32_t crc32c(std::string_view data) noexcept;

// The framing format stores the CRC "masked" so that a CRC of data that itself
// holds CRCs is still well distributed.
constexpr std::uint32_t mask_crc(std::uint32_t crc) noexcept {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

}  // namespace nsq::codec
