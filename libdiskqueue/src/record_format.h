#pragma once

#include <cstdint>
#include <string>

// A record on disk is [uint32 big-endian length][payload]
// (docs/diskqueue_format.md).
namespace nsq::diskqueue::record_format {

constexpr std::int64_t kHeaderSize = 4;

inline std::uint32_t get_u32be(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) |
         std::uint32_t{b[3]};
}

inline void append_u32be(std::string& out, std::uint32_t v) {
  char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
  out.append(b, 4);
}

}  // namespace nsq::diskqueue::record_format
