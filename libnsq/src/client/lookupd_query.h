#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace nsq::client {

// Where to send a lookup: what go-nsq makes of a --lookupd-http-address
// ("host:port", or a URL whose scheme and /lookup path may be missing).
struct LookupdEndpoint {
  std::string host;
  uint16_t port = 0;
  std::string path = "/lookup";
};

tl::expected<LookupdEndpoint, std::string> parse_lookupd_address(std::string_view address);

// "broadcast_address:tcp_port" of each producer in a /lookup answer (the
// v1 body, or the v0 one wrapped in {"data": ...}).
tl::expected<std::vector<std::string>, std::string> parse_lookup_producers(std::string_view json);

// GET <endpoint>?topic=<topic> and the producers' addresses. Blocking.
tl::expected<std::vector<std::string>, std::string> query_lookupd(
    const LookupdEndpoint& endpoint, std::string_view topic, std::chrono::milliseconds timeout);

// "%XX"-escapes what a URL query value may not hold (Go's QueryEscape).
std::string query_escape(std::string_view s);

}  // namespace nsq::client
