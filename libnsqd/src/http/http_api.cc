#include "http/http_api.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <map>

#include "core/broker.h"
#include "core/worker_pool.h"
#include "http/replies.h"
#include "net/conn_registry.h"
#include "nsq/http/router.h"
#include "nsq/http/v1_api.h"
#include "nsq/json/writer.h"
#include "nsq/stats/json.h"
#include "nsqd/options_parser.h"
#include "stats/prometheus.h"
#include "stats/stats_text.h"

namespace nsq::nsqd {
namespace {

using http::Request;
using http::Response;
using http::v1_error;
using http::v1_json;
using http_replies::ok_text;

// Go's strconv.ParseBool subset the API accepts.
std::optional<bool> parse_bool(std::string_view v) {
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  return std::nullopt;
}

stats::Memory process_memory() {
  stats::Memory m;
  struct mallinfo2 info = mallinfo2();
  m.heap_in_use_bytes = static_cast<std::int64_t>(info.uordblks);
  m.heap_idle_bytes = static_cast<std::int64_t>(info.fordblks);
  m.heap_released_bytes = static_cast<std::int64_t>(info.fsmblks);
  return m;
}

}  // namespace

HttpApi::HttpApi(Broker& broker, ConnRegistry& conns, NodeInfo node,
                 std::shared_ptr<spdlog::logger> log)
    : broker_(broker),
      conns_(conns),
      node_(std::move(node)),
      log_(std::move(log)),
      runtime_(broker.options()) {}

void HttpApi::handle(Request request, Reply reply) {
  // Handlers may block (disk queues' depth, empty, delete; lookupd): run
  // them off the HTTP I/O thread. /ping stays inline so health checks never
  // queue.
  if (request.path == "/ping") {
    route(request, reply);
    return;
  }
  auto req = std::make_shared<Request>(std::move(request));
  broker_.blocking_pool().submit([this, req, reply = std::move(reply)] { route(*req, reply); });
}

namespace {

// Handler numbers of the route table (Go's nsqd/http.go, plus /metrics).
enum RouteId {
  kPing,
  kInfo,
  kPub,
  kMpub,
  kStats,
  kMetrics,
  kTopicAction,
  kChannelAction,
  kTopicSettings,
  kChannelSettings,
  kTopicPeek,
  kChannelPeek,
  kConfig,
  kPprof,
  kSetBlockRate,
  kFreeMemory
};

http::Router make_router() {
  http::Router r;
  r.add("GET", "/ping", kPing);
  r.add("GET", "/info", kInfo);
  r.add("POST", "/pub", kPub);
  r.add("POST", "/mpub", kMpub);
  r.add("GET", "/stats", kStats);
  r.add("GET", "/metrics", kMetrics);  // ours (Prometheus), see docs/compatibility.md
  for (const char* action : {"create", "delete", "empty", "pause", "unpause"}) {
    r.add("POST", std::string("/topic/") + action, kTopicAction);
  }
  for (const char* action : {"create", "delete", "empty", "pause", "unpause"}) {
    r.add("POST", std::string("/channel/") + action, kChannelAction);
  }
  // Ours (docs/operations.md): dead letters and TTL.
  for (const char* method : {"GET", "POST"}) {
    r.add(method, "/topic/settings", kTopicSettings);
    r.add(method, "/channel/settings", kChannelSettings);
  }
  r.add("GET", "/topic/peek", kTopicPeek);
  r.add("GET", "/channel/peek", kChannelPeek);
  r.add("GET", "/config/:opt", kConfig);
  r.add("PUT", "/config/:opt", kConfig);
  http::add_pprof_routes(r, "/debug/pprof/", kPprof);
  r.add("PUT", "/debug/setblockrate", kSetBlockRate);
  r.add("POST", "/debug/freememory", kFreeMemory);
  return r;
}

const http::Router& router() {
  static const http::Router r = make_router();
  return r;
}

}  // namespace

std::size_t HttpApi::body_limit(const Request& head) const {
  auto found = router().route(head);
  const Options& o = broker_.options();
  if (found.kind == http::Router::Result::Kind::match) {
    if (found.id == kPub)
      return static_cast<std::size_t>(std::max<std::int64_t>(o.max_msg_size, 0));
    if (found.id == kMpub)
      return static_cast<std::size_t>(std::max<std::int64_t>(o.max_body_size, 0));
  }
  return std::numeric_limits<std::size_t>::max();
}

void HttpApi::route(const Request& req, const Reply& reply) {
  auto found = router().route(req);
  if (auto answer = http::unrouted_response(found)) {
    reply(std::move(*answer));
    return;
  }
  const std::string& path = req.path;
  if (found.id == kPing) {
    do_ping(req, reply);
    return;
  }
  // /pub and /mpub check their body before the query, as Go does.
  if (req.bad_query && found.id != kPub && found.id != kMpub) {
    reply(v1_error(400, "INVALID_REQUEST"));
    return;
  }
  switch (found.id) {
    case kPprof:
    case kSetBlockRate:
    case kFreeMemory:
      do_debug(req, reply);
      return;
    case kInfo:
      do_info(req, reply);
      return;
    case kStats:
      do_stats(req, reply);
      return;
    case kMetrics:
      do_metrics(req, reply);
      return;
    case kPub:
      do_pub(req, reply);
      return;
    case kMpub:
      do_mpub(req, reply);
      return;
    case kTopicAction:
      do_topic(path.substr(7), req, reply);
      return;
    case kChannelAction:
      do_channel(path.substr(9), req, reply);
      return;
    case kTopicSettings:
      do_settings(false, req, reply);
      return;
    case kChannelSettings:
      do_settings(true, req, reply);
      return;
    case kTopicPeek:
      do_peek(false, req, reply);
      return;
    case kChannelPeek:
      do_peek(true, req, reply);
      return;
    default:
      do_config(found.param, req, reply);
      return;
  }
}

// Go's runtime knobs and profiler. The two knobs keep their contract (the
// block rate is validated, freeing memory returns what malloc can); the Go
// profiles have no equivalent here and say so.
void HttpApi::do_debug(const Request& req, const Reply& reply) {
  Response r;
  if (req.path == "/debug/freememory") {
    // Go's handler returns no data, which its PlainText decorator cannot
    // render: it panics and the router answers 500 INTERNAL_ERROR, after the
    // memory was freed. The same answer here.
    malloc_trim(0);
    reply(v1_error(500, "INTERNAL_ERROR"));
    return;
  }
  if (req.path == "/debug/setblockrate") {
    std::string rate = req.query_value("rate").value_or("");
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(rate.data(), rate.data() + rate.size(), v);
    if (ec != std::errc() || p != rate.data() + rate.size()) {
      r.status = 400;
      r.body = "invalid block rate : strconv.Atoi: parsing \"" + rate + "\": invalid syntax";
    }
    reply(std::move(r));
    return;
  }
  reply(http::pprof_unavailable("nsqd"));
}

void HttpApi::do_ping(const Request&, const Reply& reply) {
  Response r;
  r.status = broker_.healthy() ? 200 : 500;
  r.body = broker_.health();
  reply(std::move(r));
}

void HttpApi::do_info(const Request&, const Reply& reply) {
  const Options& o = broker_.options();
  std::string json =
      "{\"version\":\"1.3.0\",\"broadcast_address\":" + json::quote(o.broadcast_address) +
      ",\"hostname\":" + json::quote(node_.hostname);
  json += ",\"http_port\":" + std::to_string(node_.http_port()) +
          ",\"tcp_port\":" + std::to_string(node_.tcp_port()) +
          ",\"start_time\":" + std::to_string(node_.start_time) +
          ",\"max_heartbeat_interval\":" + std::to_string(o.max_heartbeat_interval.count()) +
          ",\"max_output_buffer_size\":" + std::to_string(o.max_output_buffer_size) +
          ",\"max_output_buffer_timeout\":" + std::to_string(o.max_output_buffer_timeout.count()) +
          ",\"max_deflate_level\":" + std::to_string(o.max_deflate_level);
  // Go master: the node's topology, when it has one (nsqadmin shows it).
  if (!o.topology_zone.empty()) json += ",\"topology_zone\":" + json::quote(o.topology_zone);
  if (!o.topology_region.empty()) {
    json += ",\"topology_region\":" + json::quote(o.topology_region);
  }
  if (cluster_.replication) json += ",\"cluster\":true";  // ours; Go's /info otherwise
  if (broker_.draining()) json += ",\"draining\":true";   // ours, while draining
  json += '}';
  reply(v1_json(std::move(json)));
}

stats::Snapshot HttpApi::snapshot(const std::string& topic_filter,
                                  const std::string& channel_filter, bool include_clients,
                                  bool include_mem) const {
  stats::Snapshot s;
  s.health = broker_.health();
  s.draining = broker_.draining();
  s.start_time = node_.start_time;
  s.include_clients = include_clients;
  if (include_mem) s.memory = process_memory();
  if (!topic_filter.empty()) {
    auto topic = broker_.find_topic(topic_filter);
    if (!topic) {
      // Go's GetStats returns its zero Stats at once: topics and producers
      // both null, whoever is connected.
      s.topics_null = true;
      return s;
    }
    s.topics.push_back(topic->snapshot(channel_filter, include_clients));
  } else {
    auto topics = broker_.topics();  // sorted by name (std::map)
    for (const auto& t : topics) s.topics.push_back(t->snapshot(channel_filter, include_clients));
  }
  if (cluster_.replication) {
    for (auto& t : s.topics) t.replication = cluster_.replication(t.name);
  }
  if (!channel_filter.empty()) {
    // Topics without such a channel are left out.
    std::erase_if(s.topics, [](const stats::Topic& t) { return t.channels.empty(); });
  }
  if (!include_clients) return s;

  // Go's client.Stats(topic): with a topic filter a client's pub_counts name
  // only that topic (none when it never published to it), in the channels'
  // client lists as in the producers.
  const auto filter_pub_counts = [&](stats::Client& c) {
    if (topic_filter.empty()) return;
    std::erase_if(c.pub_counts, [&](const stats::PubCount& p) { return p.topic != topic_filter; });
  };
  for (auto& t : s.topics) {
    for (auto& ch : t.channels) {
      for (auto& c : ch.clients) filter_pub_counts(c);
    }
  }
  s.producers = conns_.producers();
  // A producer that is also subscribed reports its in-flight count as its
  // channel entry does (the channel keeps it): look it up by remote address,
  // unique among live connections, in every channel whatever the filters.
  bool subscribed_producer = false;
  for (const auto& p : s.producers) subscribed_producer |= p.state == 3;
  if (subscribed_producer) {
    std::vector<stats::Topic> all;
    const std::vector<stats::Topic>* source = &s.topics;
    if (!topic_filter.empty() || !channel_filter.empty()) {
      for (const auto& t : broker_.topics()) all.push_back(t->snapshot("", true));
      source = &all;
    }
    std::map<std::string, std::int64_t, std::less<>> in_flight;
    for (const auto& t : *source) {
      for (const auto& ch : t.channels) {
        for (const auto& c : ch.clients) in_flight[c.remote_address] = c.in_flight_count;
      }
    }
    for (auto& p : s.producers) {
      if (auto it = in_flight.find(p.remote_address); it != in_flight.end()) {
        p.in_flight_count = it->second;
      }
    }
  }
  for (auto& p : s.producers) filter_pub_counts(p);
  return s;
}

void HttpApi::do_stats(const Request& req, const Reply& reply) {
  std::string topic = req.query_value("topic").value_or("");
  std::string channel = req.query_value("channel").value_or("");
  bool include_clients =
      parse_bool(req.query_value("include_clients").value_or("true")).value_or(true);
  bool include_mem = parse_bool(req.query_value("include_mem").value_or("true")).value_or(true);
  stats::Snapshot s = snapshot(topic, channel, include_clients, include_mem);
  if (req.query_value("format").value_or("") == "json") {
    reply(v1_json(stats::write_stats_json(s)));
    return;
  }
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  const std::string version = config::version_string("nsqd", config::compiler_name());
  reply(ok_text(render_stats_text(s, version, now)));
}

void HttpApi::do_metrics(const Request&, const Reply& reply) {
  Response r;
  r.content_type = std::string(kPrometheusContentType);
  r.body = render_prometheus(snapshot("", "", true, true));
  reply(std::move(r));
}

}  // namespace nsq::nsqd
