#pragma once

#include <optional>
#include <string>

#include <boost/asio/ip/tcp.hpp>

// For the servers' listener set-up only (it brings in Asio).
namespace nsq {

// A listen address as Go's net.Listen takes it: "host:port", "[v6]:port" or
// ":port" (all interfaces); "localhost" is the IPv4 loopback. nullopt when
// the host is not an IP address or the port is not a number up to 65535.
std::optional<boost::asio::ip::tcp::endpoint> parse_listen_address(const std::string& address);

}  // namespace nsq
