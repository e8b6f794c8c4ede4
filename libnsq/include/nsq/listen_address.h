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

// Opens, binds and listens on `endpoint` as Go's net.Listen: SO_REUSEADDR,
// the system's largest backlog. `acceptor` is left as the first failing
// step left it.
boost::system::error_code open_listener(boost::asio::ip::tcp::acceptor& acceptor,
                                        const boost::asio::ip::tcp::endpoint& endpoint);

// "127.0.0.1:4150", "[::1]:4150": an address as Go prints it.
std::string endpoint_string(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace nsq
