#pragma once

#include <charconv>
#include <cstdint>
#include <string>

#include "nsq/http/message.h"
#include "nsq/http/v1_api.h"

// What the nsqd HTTP handlers (http_api.cc, http_publish.cc, http_admin.cc)
// share in answering.
namespace nsq::nsqd::http_replies {

// 200 with a text body, as Go's V1 responses.
inline http::Response ok_text(std::string body = {}) {
  return http::v1_response(200, std::move(body));
}

// A Content-Length header above `limit` (answered before reading the body, as Go).
inline bool declared_length_over(const http::Request& req, std::int64_t limit) {
  auto len = req.header("content-length");
  if (!len) return false;
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(len->data(), len->data() + len->size(), n);
  return ec == std::errc() && n > limit;
}

}  // namespace nsq::nsqd::http_replies
