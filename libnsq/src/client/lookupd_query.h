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
// A non-empty bearer_secret is sent as `Authorization: Bearer <secret>`.
tl::expected<std::vector<std::string>, std::string> query_lookupd(
    const LookupdEndpoint& endpoint, std::string_view topic, std::chrono::milliseconds timeout,
    const std::string& bearer_secret = {});

}  // namespace nsq::client
