#include "cidr.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <string>

namespace nsq::admin {
namespace {

// Both families as 16 bytes, IPv4 mapped (::ffff:a.b.c.d), as Go stores them.
std::optional<std::array<std::uint8_t, 16>> parse_ip(std::string_view text, bool* v4) {
  const std::string s(text);
  std::array<std::uint8_t, 16> out{};
  in_addr a4{};
  if (inet_pton(AF_INET, s.c_str(), &a4) == 1) {
    out[10] = out[11] = 0xff;
    const auto* b = reinterpret_cast<const std::uint8_t*>(&a4.s_addr);
    for (int i = 0; i < 4; ++i) out[12 + i] = b[i];
    *v4 = true;
    return out;
  }
  in6_addr a6{};
  if (inet_pton(AF_INET6, s.c_str(), &a6) == 1) {
    for (int i = 0; i < 16; ++i) out[i] = a6.s6_addr[i];
    *v4 = false;
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Cidr> parse_cidr(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  bool v4 = false;
  auto ip = parse_ip(text.substr(0, slash), &v4);
  if (!ip) return std::nullopt;
  const auto bits_text = text.substr(slash + 1);
  int bits = -1;
  auto [end, ec] = std::from_chars(bits_text.data(), bits_text.data() + bits_text.size(), bits);
  if (ec != std::errc() || end != bits_text.data() + bits_text.size() || bits_text.empty()) {
    return std::nullopt;
  }
  if (bits < 0 || bits > (v4 ? 32 : 128)) return std::nullopt;
  Cidr c;
  c.address = *ip;
  c.prefix_bits = v4 ? 96 + bits : bits;
  c.v4 = v4;
  return c;
}

bool contains(const Cidr& net, std::string_view ip_text) {
  bool v4 = false;
  auto ip = parse_ip(ip_text, &v4);
  if (!ip) return false;
  // Go compares an address in its 4-byte form when it has one (plain or
  // IPv4-mapped) and never across lengths.
  const bool ip_is_v4 =
      v4 || (ip->at(10) == 0xff && ip->at(11) == 0xff &&
             std::all_of(ip->begin(), ip->begin() + 10, [](std::uint8_t b) { return b == 0; }));
  if (ip_is_v4 != net.v4) return false;
  for (int bit = 0; bit < net.prefix_bits; ++bit) {
    const int byte = bit / 8;
    const std::uint8_t mask = static_cast<std::uint8_t>(0x80u >> (bit % 8));
    if ((net.address[byte] & mask) != ((*ip)[byte] & mask)) return false;
  }
  return true;
}

std::string_view remote_host(std::string_view remote) {
  if (!remote.empty() && remote.front() == '[') {
    const auto close = remote.find("]:");
    return close == std::string_view::npos ? std::string_view() : remote.substr(1, close - 1);
  }
  const auto colon = remote.rfind(':');
  if (colon == std::string_view::npos || remote.find(':') != colon) return {};
  return remote.substr(0, colon);
}

}  // namespace nsq::admin
