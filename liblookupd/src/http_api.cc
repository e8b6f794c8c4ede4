#include "http_api.h"

#include <spdlog/spdlog.h>

#include "nsq/http/router.h"
#include "nsq/http/v1_api.h"
#include "nsq/json/writer.h"
#include "nsq/names.h"

namespace nsq::lookupd {
namespace {

using http::Request;
using http::Response;
using http::v1_error;
using http::v1_json;

// Go's zero time.Time as UnixNano (printed for never-tombstoned producers).
constexpr std::int64_t kGoZeroTimeUnixNano = -6795364578871345152;

Response ok_empty() { return http::v1_response(200, {}); }

std::string string_array(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += json::quote(values[i]);
  }
  return out + "]";
}

// Go's omitempty: `,"key":"value"`, or nothing for an empty value.
std::string optional_field(std::string_view key, const std::string& value) {
  if (value.empty()) return {};
  return "," + json::quote(key) + ":" + json::quote(value);
}

// PeerInfo's exported fields in Go's struct order (no closing brace).
std::string peer_fields(const PeerInfo& p) {
  return "{\"remote_address\":" + json::quote(p.remote_address) +
         ",\"hostname\":" + json::quote(p.hostname) +
         ",\"broadcast_address\":" + json::quote(p.broadcast_address) +
         ",\"tcp_port\":" + std::to_string(p.tcp_port) +
         ",\"http_port\":" + std::to_string(p.http_port) +
         ",\"version\":" + json::quote(p.version) +
         optional_field("topology_zone", p.topology_zone) +
         optional_field("topology_region", p.topology_region);
}

std::int64_t unix_nano(Time t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

enum RouteId {
  kPing,
  kInfo,
  kDebug,
  kLookup,
  kTopics,
  kChannels,
  kNodes,
  kTopicAction,
  kChannelAction,
  kPprof
};

// Go's nsqlookupd/http.go route table.
http::Router make_router() {
  http::Router r;
  r.add("GET", "/ping", kPing);
  r.add("GET", "/info", kInfo);
  r.add("GET", "/debug", kDebug);
  r.add("GET", "/lookup", kLookup);
  r.add("GET", "/topics", kTopics);
  r.add("GET", "/channels", kChannels);
  r.add("GET", "/nodes", kNodes);
  r.add("POST", "/topic/create", kTopicAction);
  r.add("POST", "/topic/delete", kTopicAction);
  r.add("POST", "/channel/create", kChannelAction);
  r.add("POST", "/channel/delete", kChannelAction);
  r.add("POST", "/topic/tombstone", kTopicAction);
  http::add_pprof_routes(r, "/debug/pprof", kPprof);
  return r;
}

const http::Router& router() {
  static const http::Router r = make_router();
  return r;
}

}  // namespace

HttpApi::HttpApi(RegistrationDb& db, const Options& options, std::shared_ptr<spdlog::logger> log)
    : db_(db), options_(options), log_(std::move(log)) {}

Response HttpApi::handle(const Request& req, Time now) const {
  auto found = router().route(req);
  if (auto answer = http::unrouted_response(found)) return std::move(*answer);
  return route(req, now);
}

Response HttpApi::route(const Request& req, Time now) const {
  const std::string& path = req.path;
  if (path == "/ping") {
    Response r;
    r.body = "OK";
    return r;
  }
  if (path.starts_with("/debug/pprof")) return http::pprof_unavailable("nsqlookupd");
  if (req.bad_query) return v1_error(400, "INVALID_REQUEST");
  if (path == "/info") return v1_json("{\"version\":\"1.3.0\"}");
  if (path == "/debug") return do_debug();
  if (path == "/lookup") return do_lookup(req, now);
  if (path == "/topics") return v1_json("{\"topics\":" + string_array(topics(db_)) + "}");
  if (path == "/channels") {
    auto topic = req.query_value("topic");
    if (!topic) return v1_error(400, "MISSING_ARG_TOPIC");
    return v1_json("{\"channels\":" + string_array(channels(db_, *topic)) + "}");
  }
  if (path == "/nodes") return do_nodes(now);
  if (path.starts_with("/topic/"))
    return do_topic_action(std::string_view(path).substr(7), req, now);
  return do_channel_action(std::string_view(path).substr(9), req);
}

Response HttpApi::do_lookup(const Request& req, Time now) const {
  auto topic = req.query_value("topic");
  if (!topic) return v1_error(400, "MISSING_ARG_TOPIC");
  auto result =
      lookup(db_, *topic, now, options_.inactive_producer_timeout, options_.tombstone_lifetime);
  if (!result) return v1_error(404, "TOPIC_NOT_FOUND");
  std::string json = "{\"channels\":" + string_array(result->channels) + ",\"producers\":[";
  for (std::size_t i = 0; i < result->producers.size(); ++i) {
    if (i) json += ',';
    json += peer_fields(*result->producers[i]) + "}";
  }
  return v1_json(json + "]}");
}

Response HttpApi::do_nodes(Time now) const {
  std::string json = "{\"producers\":[";
  bool first = true;
  for (const NodeInfo& n :
       nodes(db_, now, options_.inactive_producer_timeout, options_.tombstone_lifetime)) {
    if (!first) json += ',';
    first = false;
    json += peer_fields(*n.peer) + ",\"tombstones\":[";
    for (std::size_t i = 0; i < n.tombstones.size(); ++i) {
      if (i) json += ',';
      json += n.tombstones[i] ? "true" : "false";
    }
    json += "],\"topics\":" + string_array(n.topics) + "}";
  }
  return v1_json(json + "]}");
}

Response HttpApi::do_debug() const {
  // A Go map[string][]map[string]interface{}: keys sorted at both levels.
  std::map<std::string, std::string> entries;
  for (const auto& [r, producers] : db_.snapshot()) {
    if (producers.empty()) continue;
    std::string list = "[";
    for (std::size_t i = 0; i < producers.size(); ++i) {
      const Producer& p = producers[i];
      const PeerInfo& info = *p.peer;
      if (i) list += ',';
      list += "{\"broadcast_address\":" + json::quote(info.broadcast_address) +
              ",\"hostname\":" + json::quote(info.hostname) +
              ",\"http_port\":" + std::to_string(info.http_port) +
              ",\"id\":" + json::quote(info.id) +
              ",\"last_update\":" + std::to_string(unix_nano(p.last_update)) +
              ",\"tcp_port\":" + std::to_string(info.tcp_port) +
              ",\"tombstoned\":" + (p.tombstoned ? "true" : "false") + ",\"tombstoned_at\":" +
              std::to_string(p.tombstoned ? unix_nano(p.tombstoned_at) : kGoZeroTimeUnixNano) +
              ",\"version\":" + json::quote(info.version) + "}";
    }
    entries[r.category + ":" + r.key + ":" + r.subkey] = list + "]";
  }
  std::string json = "{";
  bool first = true;
  for (const auto& [key, list] : entries) {
    if (!first) json += ',';
    first = false;
    json += json::quote(key) + ":" + list;
  }
  return v1_json(json + "}");
}

Response HttpApi::do_topic_action(std::string_view action, const Request& req, Time now) const {
  auto topic = req.query_value("topic");
  if (!topic) return v1_error(400, "MISSING_ARG_TOPIC");
  if (action == "create") {
    if (!is_valid_topic_name(*topic)) return v1_error(400, "INVALID_ARG_TOPIC");
    log_->info("DB: adding topic({})", *topic);
    db_.add_registration(Registration{std::string(kTopic), *topic, ""});
    return ok_empty();
  }
  if (action == "delete") {
    for (const Registration& r : db_.find_registrations(kChannel, *topic, "*")) {
      log_->info("DB: removing channel({}) from topic({})", r.subkey, *topic);
      db_.remove_registration(r);
    }
    for (const Registration& r : db_.find_registrations(kTopic, *topic, "")) {
      log_->info("DB: removing topic({})", *topic);
      db_.remove_registration(r);
    }
    return ok_empty();
  }
  // tombstone
  auto node = req.query_value("node");
  if (!node) return v1_error(400, "MISSING_ARG_NODE");
  log_->info("DB: setting tombstone for producer@{} of topic({})", *node, *topic);
  db_.tombstone(*topic, *node, now);
  return ok_empty();
}

Response HttpApi::do_channel_action(std::string_view action, const Request& req) const {
  auto args = http::topic_channel_args(req);
  if (!args) return std::move(args.error());
  const auto& [topic, channel] = *args;
  Registration key{std::string(kChannel), topic, channel};
  if (action == "create") {
    log_->info("DB: adding channel({}) in topic({})", channel, topic);
    db_.add_registration(key);
    log_->info("DB: adding topic({})", topic);
    db_.add_registration(Registration{std::string(kTopic), topic, ""});
    return ok_empty();
  }
  auto found = db_.find_registrations(kChannel, topic, channel);
  if (found.empty()) return v1_error(404, "CHANNEL_NOT_FOUND");
  log_->info("DB: removing channel({}) from topic({})", channel, topic);
  for (const Registration& r : found) db_.remove_registration(r);
  return ok_empty();
}

}  // namespace nsq::lookupd
