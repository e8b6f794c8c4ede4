#include "nsq/listen_address.h"

namespace nsq {

std::optional<boost::asio::ip::tcp::endpoint> parse_listen_address(const std::string& address) {
  namespace ip = boost::asio::ip;
  auto colon = address.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string host = address.substr(0, colon);
  std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const unsigned long p = std::stoul(port);
  if (p > 65535) return std::nullopt;
  boost::system::error_code ec;
  ip::address addr = host.empty() ? ip::address(ip::address_v4::any()) : ip::make_address(host, ec);
  if (ec) {
    if (host != "localhost") return std::nullopt;
    addr = ip::address_v4::loopback();
  }
  return ip::tcp::endpoint(addr, static_cast<unsigned short>(p));
}

boost::system::error_code open_listener(boost::asio::ip::tcp::acceptor& acceptor,
                                        const boost::asio::ip::tcp::endpoint& endpoint) {
  using tcp = boost::asio::ip::tcp;
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  return ec;
}

std::string endpoint_string(const boost::asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace nsq
