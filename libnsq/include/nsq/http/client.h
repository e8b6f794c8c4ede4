#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <tl/expected.hpp>

#include "nsq/http/message.h"

namespace nsq::http {

struct ClientResponse {
  int status = 0;
  HeaderList headers;  // names lower-cased
  std::string body;
};

// A blocking HTTP/1.0 GET for the few requests NSQ servers make themselves
// (nsqd asking lookupd for a topic's channels, the auth server, lookupd
// discovery in the client): one connection per request, no redirects.
// `connect_timeout` bounds the TCP connect, `request_timeout` the whole
// exchange. Sends `Accept: application/vnd.nsq; version=1.0`, as NSQ does.
// The error is a message such as "connect 127.0.0.1:4161: Connection refused".
tl::expected<ClientResponse, std::string> get(const std::string& host, std::uint16_t port,
                                              const std::string& path_and_query,
                                              std::chrono::milliseconds connect_timeout,
                                              std::chrono::milliseconds request_timeout,
                                              std::size_t max_body = 5 * 1024 * 1024);

}  // namespace nsq::http
