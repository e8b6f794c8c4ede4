#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <tl/expected.hpp>

#include "nsq/http/client.h"

namespace nsq::nsqd {

// A blocking HTTPS GET for nsqd's own requests to https:// auth servers (the
// shared nsq::http::get speaks plain HTTP only). The server certificate is
// verified against `root_ca_file` (--tls-root-ca-file) or the system roots,
// and its name against `host`, as Go's client does. `connect_timeout`
// bounds the TCP connect, `request_timeout` the whole exchange. Call from a
// worker thread, never from an I/O thread.
tl::expected<http::ClientResponse, std::string> https_get(
    const std::string& host, std::uint16_t port, const std::string& path_and_query,
    const std::string& root_ca_file, std::chrono::milliseconds connect_timeout,
    std::chrono::milliseconds request_timeout, std::size_t max_body);

}  // namespace nsq::nsqd
