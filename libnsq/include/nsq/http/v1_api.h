#pragma once

// What the HTTP APIs of Go's nsqd and nsqlookupd share (Go NSQ's
// internal/http_api package and their route tables): the V1 response
// header, the {"message": ...} error body, the answers of an unmatched
// route, the topic and channel arguments, and the pprof routes. No Asio or
// Beast here.

#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "nsq/http/message.h"
#include "nsq/http/router.h"

namespace nsq::http {

inline constexpr std::string_view kJsonContentType = "application/json; charset=utf-8";
inline constexpr std::string_view kTextContentType = "text/plain; charset=utf-8";

// A response with Go's V1 header (X-NSQ-Content-Type: nsq; version=1.0).
Response v1_response(int status, std::string body,
                     std::string_view content_type = kTextContentType);

// 200 with a JSON body, V1.
Response v1_json(std::string body);

// Go's http_api.Err: {"message":<message>} as JSON with `status`, V1.
Response v1_error(int status, std::string_view message);

// The answer to a request `found` did not match: the router's redirect or
// OPTIONS answer, 405 METHOD_NOT_ALLOWED with Allow, or 404 NOT_FOUND.
// nullopt for a match. Takes the response out of `found`.
std::optional<Response> unrouted_response(Router::Result& found);

struct TopicChannel {
  std::string topic;
  std::string channel;
};

// Go's http_api.GetTopicChannelArgs: ?topic= and ?channel=, present and
// valid names, or the 400 to answer (MISSING_ARG_TOPIC, INVALID_ARG_TOPIC,
// MISSING_ARG_CHANNEL, INVALID_ARG_CHANNEL, in that order of checks).
tl::expected<TopicChannel, Response> topic_channel_args(const Request& req);

// Go's net/http/pprof routes as nsqd and nsqlookupd register them, all for
// handler `id`: `index` ("/debug/pprof/" in nsqd, "/debug/pprof" in
// nsqlookupd), then cmdline, symbol (GET and POST), profile, heap,
// goroutine, block and threadcreate.
void add_pprof_routes(Router& router, std::string index, int id);

// The answer to those: 501, as Go's runtime profiles do not exist in
// `program` ("nsqd"), with what to use instead.
Response pprof_unavailable(std::string_view program);

}  // namespace nsq::http
