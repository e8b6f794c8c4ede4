#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "nsq/endian.h"

// Big-endian fields for cluster mode's binary bodies and files
// (replication_wire.h, progress.h): appenders, and a reader that takes
// fields off the front and turns any short read into a failure.
namespace nsq::nsqd::cluster::binary {

inline void put16(std::string& out, std::uint16_t v) {
  char b[2];
  put_u16be(b, v);
  out.append(b, 2);
}
inline void put32(std::string& out, std::uint32_t v) {
  char b[4];
  put_u32be(b, v);
  out.append(b, 4);
}
inline void put64(std::string& out, std::uint64_t v) {
  char b[8];
  put_u64be(b, v);
  out.append(b, 8);
}
// [u16 length][bytes]
inline void put_str(std::string& out, std::string_view s) {
  put16(out, static_cast<std::uint16_t>(s.size()));
  out.append(s);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  bool ok() const { return ok_; }
  bool done() const { return rest_.empty(); }
  void fail() { ok_ = false; }
  std::size_t left() const { return rest_.size(); }

  std::string_view take(std::size_t n) {
    if (!ok_ || rest_.size() < n) {
      ok_ = false;
      return {};
    }
    std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  std::uint8_t u8() {
    auto b = take(1);
    return ok_ ? static_cast<std::uint8_t>(b[0]) : 0;
  }
  std::uint16_t u16() {
    auto b = take(2);
    return ok_ ? get_u16be(b.data()) : 0;
  }
  std::uint32_t u32() {
    auto b = take(4);
    return ok_ ? get_u32be(b.data()) : 0;
  }
  std::uint64_t u64() {
    auto b = take(8);
    return ok_ ? get_u64be(b.data()) : 0;
  }
  std::string str() { return std::string(take(u16())); }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

}  // namespace nsq::nsqd::cluster::binary
