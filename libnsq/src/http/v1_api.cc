#include "nsq/http/v1_api.h"

#include <utility>

#include "nsq/json/writer.h"
#include "nsq/names.h"

namespace nsq::http {

Response v1_response(int status, std::string body, std::string_view content_type) {
  Response r;
  r.status = status;
  r.content_type = std::string(content_type);
  r.body = std::move(body);
  r.headers.emplace_back("X-NSQ-Content-Type", "nsq; version=1.0");
  return r;
}

Response v1_json(std::string body) { return v1_response(200, std::move(body), kJsonContentType); }

Response v1_error(int status, std::string_view message) {
  return v1_response(status, "{\"message\":" + json::quote(message) + "}", kJsonContentType);
}

std::optional<Response> unrouted_response(Router::Result& found) {
  switch (found.kind) {
    case Router::Result::Kind::redirect:
    case Router::Result::Kind::options:
      return std::move(found.response);
    case Router::Result::Kind::method_not_allowed: {
      Response r = v1_error(405, "METHOD_NOT_ALLOWED");
      r.headers.emplace_back("Allow", std::move(found.allow));
      return r;
    }
    case Router::Result::Kind::not_found:
      return v1_error(404, "NOT_FOUND");
    case Router::Result::Kind::match:
      break;
  }
  return std::nullopt;
}

tl::expected<TopicChannel, Response> topic_channel_args(const Request& req) {
  auto topic = req.query_value("topic");
  if (!topic) return tl::unexpected(v1_error(400, "MISSING_ARG_TOPIC"));
  if (!is_valid_topic_name(*topic)) return tl::unexpected(v1_error(400, "INVALID_ARG_TOPIC"));
  auto channel = req.query_value("channel");
  if (!channel) return tl::unexpected(v1_error(400, "MISSING_ARG_CHANNEL"));
  if (!is_valid_channel_name(*channel)) {
    return tl::unexpected(v1_error(400, "INVALID_ARG_CHANNEL"));
  }
  return TopicChannel{std::move(*topic), std::move(*channel)};
}

void add_pprof_routes(Router& router, std::string index, int id) {
  router.add("GET", std::move(index), id);
  for (const char* name :
       {"cmdline", "symbol", "profile", "heap", "goroutine", "block", "threadcreate"}) {
    router.add("GET", std::string("/debug/pprof/") + name, id);
  }
  router.add("POST", "/debug/pprof/symbol", id);
}

Response pprof_unavailable(std::string_view program) {
  Response r;
  r.status = 501;
  r.body = "Go runtime profiles (pprof) do not exist in this " + std::string(program) +
           "; profile it with perf or valgrind instead\n";
  return r;
}

}  // namespace nsq::http
