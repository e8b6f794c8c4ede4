#include "nsq/codec/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace nsq::codec {
namespace {

// Slicing-by-8 tables for the reflected Castagnoli polynomial: eight bytes per
// step keeps the checksum well below the cost of the snappy block codec.
using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    t[0][i] = c;
  }
  for (std::size_t i = 0; i < 256; ++i) {
    for (std::size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
  return t;
}

constexpr Tables kTables = make_tables();

std::uint32_t crc32c_tables(std::string_view data) noexcept {
  std::uint32_t crc = 0xffffffffu;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  while (n >= 8) {
    std::uint32_t lo =
        crc ^ (static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
               static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24);
    crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
          kTables[4][lo >> 24] ^ kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^
          kTables[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
  return crc ^ 0xffffffffu;
}

#if defined(__x86_64__)
// SSE 4.2's CRC32 instruction computes this very polynomial, eight bytes a
// cycle or so: the replica log checksums every record it writes and reads.
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(std::string_view data) noexcept {
  std::uint64_t crc = 0xffffffffu;
  const char* p = data.data();
  std::size_t n = data.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    crc = _mm_crc32_u64(crc, word);
  }
  auto crc32 = static_cast<std::uint32_t>(crc);
  for (; n > 0; ++p, --n) crc32 = _mm_crc32_u8(crc32, static_cast<unsigned char>(*p));
  return crc32 ^ 0xffffffffu;
}

bool has_sse42() noexcept {
  __builtin_cpu_init();  // this runs in a static initializer, maybe before libgcc's
  return __builtin_cpu_supports("sse4.2");
}

const bool kHasSse42 = has_sse42();
#endif

}  // namespace

std::uint32_t crc32c(std::string_view data) noexcept {
#if defined(__x86_64__)
  if (kHasSse42) return crc32c_sse42(data);
#endif
  return crc32c_tables(data);
}

}  // namespace nsq::codec
