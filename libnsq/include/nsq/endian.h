#pragma once

#include <cstdint>
#include <string>

// Big-endian (network order) integer access on raw bytes. The pointers must
// have room for the integer's size; no alignment is required.
namespace nsq {

inline void put_u16be(char* p, uint16_t v) noexcept {
  p[0] = static_cast<char>(v >> 8);
  p[1] = static_cast<char>(v);
}

inline void put_u32be(char* p, uint32_t v) noexcept {
  p[0] = static_cast<char>(v >> 24);
  p[1] = static_cast<char>(v >> 16);
  p[2] = static_cast<char>(v >> 8);
  p[3] = static_cast<char>(v);
}

inline void put_u64be(char* p, uint64_t v) noexcept {
  put_u32be(p, static_cast<uint32_t>(v >> 32));
  put_u32be(p + 4, static_cast<uint32_t>(v));
}

inline uint16_t get_u16be(const char* p) noexcept {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>((u[0] << 8) | u[1]);
}

inline uint32_t get_u32be(const char* p) noexcept {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}

inline uint64_t get_u64be(const char* p) noexcept {
  return (uint64_t{get_u32be(p)} << 32) | get_u32be(p + 4);
}

// Signed views: the wire uses int32 sizes and an int64 timestamp.
inline int32_t get_i32be(const char* p) noexcept { return static_cast<int32_t>(get_u32be(p)); }
inline int64_t get_i64be(const char* p) noexcept { return static_cast<int64_t>(get_u64be(p)); }

inline void append_u32be(std::string& out, uint32_t v) {
  char b[4];
  put_u32be(b, v);
  out.append(b, sizeof b);
}

}  // namespace nsq
