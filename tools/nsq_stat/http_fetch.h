#pragma once

#include <chrono>
#include <string>
#include <tl/expected.hpp>

namespace nsq::stat {

struct HttpTimeouts {
  std::chrono::milliseconds connect{2000};
  std::chrono::milliseconds request{5000};
};

// GET http://<address><target> as Go's http_api client does for NSQ's V1 API
// (GETV1): the body of a 200 response. Errors read like Go's:
// `Get "http://127.0.0.1:1/stats": connect 127.0.0.1:1: Connection refused`
// or `got response 404 Not Found "{\"message\":\"TOPIC_NOT_FOUND\"}"`.
tl::expected<std::string, std::string> fetch_v1(const std::string& address,
                                                const std::string& target,
                                                const HttpTimeouts& timeouts);

}  // namespace nsq::stat
