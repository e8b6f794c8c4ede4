#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

// An IP network as Go's net.ParseCIDR reads it ("127.0.0.1/8", "::1/128"),
// for --allow-config-from-cidr.
namespace nsq::admin {

struct Cidr {
  std::array<std::uint8_t, 16> address{};  // IPv4 in the IPv4-mapped IPv6 form
  int prefix_bits = 0;                     // counted over the 16 bytes
  bool v4 = false;                         // written as an IPv4 network
};

std::optional<Cidr> parse_cidr(std::string_view text);

// `ip`: a literal address ("10.1.2.3", "::1", "::ffff:10.1.2.3"). As Go's
// IPNet.Contains, an IPv4 network contains the IPv4-mapped form of its
// addresses and an IPv4 address is never inside a non-mapped IPv6 network.
bool contains(const Cidr& net, std::string_view ip);

// The host part of a "ip:port" / "[v6]:port" remote address ("" if malformed).
std::string_view remote_host(std::string_view remote_address);

}  // namespace nsq::admin
