#include "api.h"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <map>
#include <optional>
#include <vector>

#include "cidr.h"
#include "cluster_json.h"
#include "config_values.h"
#include "graphite.h"
#include "history.h"
#include "history_json.h"
#include "notifier.h"
#include "nsq/config/option_table.h"
#include "nsq/go_logger.h"
#include "nsq/hostname.h"
#include "nsq/http/v1_api.h"
#include "nsq/names.h"
#include "static_assets.h"

namespace nsq::admin {
namespace {

http::Response json_response(int status, std::string body) {
  return http::v1_response(status, std::move(body), http::kJsonContentType);
}

http::Response error(int status, std::string_view message) {
  return json_response(status, message_json(message));
}

// Go's maybeWarnMsg.
std::string warn_message(const std::vector<std::string>& messages) {
  if (messages.empty()) return {};
  std::string out = "WARNING: ";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i > 0) out += "; ";
    out += messages[i];
  }
  return out;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < path.size()) {
    auto slash = path.find('/', i);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > i) parts.emplace_back(path.substr(i, slash - i));
    i = slash + 1;
  }
  return parts;
}

// The string fields of a JSON object body, or Go's decoder error text.
tl::expected<std::map<std::string, std::string>, std::string> decode_body(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos)
    return tl::unexpected(std::string("EOF"));
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) return tl::unexpected(std::string("invalid character in JSON body"));
  if (!doc.IsObject())
    return tl::unexpected(std::string("json: cannot unmarshal body into an object"));
  std::map<std::string, std::string> out;
  // By index: clang warns that RapidJSON's iterator != is ambiguous in C++20.
  for (rapidjson::SizeType i = 0; i < doc.MemberCount(); ++i) {
    const auto& m = *(doc.MemberBegin() + i);
    if (m.value.IsString()) {
      out[m.name.GetString()] = std::string(m.value.GetString(), m.value.GetStringLength());
    } else if (!m.value.IsNull()) {
      return tl::unexpected("json: cannot unmarshal " + std::string(m.name.GetString()) +
                            " into a string");
    }
  }
  return out;
}

// The graphite part of a topic, channel or node answer (only with
// --graphite-url): the target /api/graphite reads the rate of, and the charts.
void write_graphite(JsonOut& out, const std::string& rate_target,
                    const std::vector<graphite::Chart>& charts) {
  out.key("graphite");
  out.begin_object();
  out.key("rate_target");
  out.string(rate_target);
  out.key("charts");
  out.begin_array();
  for (const auto& c : charts) {
    out.begin_object();
    out.key("metric");
    out.string(c.metric);
    out.key("title");
    out.string(c.title);
    out.key("url");
    out.string(c.url);
    out.end_object();
  }
  out.end_array();
  out.end_object();
}

std::string field(const std::map<std::string, std::string>& m, const char* key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

}  // namespace

// The route handlers of one request: small, each like its Go namesake.
class Api::Handlers {
 public:
  Handlers(const Api& api, const http::Request& req) : api_(api), req_(req), opts_(api.options()) {}

  const Options& opts() const { return *opts_; }
  const ClusterInfo& ci() const { return *api_.cluster_; }
  const Addresses& lookupds() const { return opts().lookupd_http_addresses; }
  const Addresses& nsqds() const { return opts().nsqd_http_addresses; }

  bool graph_enabled() const { return !opts().graphite_url.empty(); }

  UpstreamTimeouts timeouts() const { return upstream_settings(opts()); }

  // Go's graphiteHandler: the message rate of `target` over the last complete
  // statsd interval, from graphite's render API.
  http::Response graphite_rate() {
    if (req_.bad_query) return error(400, "INVALID_REQUEST");
    if (req_.query_value("metric") != std::optional<std::string>("rate")) {
      return error(400, "INVALID_ARG_METRIC");
    }
    auto target = req_.query_value("target");
    if (!target) return error(400, "INVALID_ARG_TARGET");
    if (!graph_enabled()) {
      // Go would ask "" + "/render?..." and fail: no request leaves here.
      if (api_.log_) api_.log_->error("graphite request failed - no --graphite-url");
      return error(500, "INTERNAL_ERROR");
    }
    std::string base = opts().graphite_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    const std::string url = base + graphite::rate_query(opts(), *target);
    if (api_.log_) api_.log_->info("GRAPHITE: {}", url);
    auto body = get_v1(url, timeouts());
    if (!body) {
      if (api_.log_) api_.log_->error("graphite request failed - {}", body.error());
      return error(500, "INTERNAL_ERROR");
    }
    auto rate = graphite::rate_from_render(*body, opts());
    if (!rate) {
      if (api_.log_) api_.log_->error("graphite request failed - {}", rate.error());
      return error(500, "INTERNAL_ERROR");
    }
    JsonOut out;
    out.begin_object();
    out.key("rate");
    out.string(*rate);
    out.end_object();
    return json_response(200, out.take());
  }

  // --proxy-graphite: <base>/render is passed to graphite as is, and its
  // answer (a chart image, JSON, an error) back to the browser.
  http::Response graphite_proxy() {
    std::string base = opts().graphite_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    std::string url = base + "/render";
    if (!req_.raw_query.empty()) url += "?" + req_.raw_query;
    auto resp = get_raw(url, timeouts());
    if (!resp) {
      // Go's ReverseProxy answers a failed upstream with a bare 502.
      if (api_.log_) api_.log_->error("graphite proxy: {}", resp.error());
      http::Response r;
      r.status = 502;
      return r;
    }
    http::Response r;
    r.status = resp->status;
    r.content_type.clear();
    for (const auto& [name, value] : resp->headers) {
      if (name == "content-type") r.content_type = value;
    }
    r.body = std::move(resp->body);
    return r;
  }

  // Go's doConfig: read an option, or change nsqlookupd_http_addresses or
  // log_level, from --allow-config-from-cidr only.
  http::Response config(const std::string& opt) {
    const std::string& allowed = opts().allow_config_from_cidr;
    if (!allowed.empty()) {
      const auto host = remote_host(req_.remote_address);
      if (host.empty()) {
        if (api_.log_) api_.log_->error("failed to parse RemoteAddr {}", req_.remote_address);
        return error(400, "INVALID_REMOTE_ADDR");
      }
      auto net = parse_cidr(allowed);
      if (!net) {
        // validation_error() refuses a bad CIDR at startup; kept for safety.
        if (api_.log_) api_.log_->error("invalid --allow-config-from-cidr {}", allowed);
        return error(500, "INTERNAL_ERROR");
      }
      if (!contains(*net, host)) return error(403, "FORBIDDEN");
    }
    if (req_.method == "PUT") {
      if (req_.body_too_big || req_.body.empty()) return error(413, "INVALID_VALUE");
      auto next = std::make_shared<Options>(opts());
      if (opt == "nsqlookupd_http_addresses") {
        auto list = parse_string_list(req_.body);
        if (!list) return error(400, "INVALID_VALUE");
        next->lookupd_http_addresses = std::move(*list);
      } else if (opt == "log_level") {
        auto rank = config::parse_log_level_rank(req_.body);
        if (!rank) return error(400, "INVALID_VALUE");
        next->log_level = static_cast<GoLogLevel>(*rank);
        if (api_.log_) set_go_log_level(*api_.log_, next->log_level);
      } else {
        return error(400, "INVALID_OPTION");
      }
      opts_ = next;
      api_.swap_options(std::move(next));
    }
    auto value = config_value(opts(), opt);
    if (!value) return error(400, "INVALID_OPTION");
    if (value->json) return json_response(200, std::move(value->body));
    return http::v1_response(200, std::move(value->body));
  }

  bool is_admin() const {
    if (opts().admin_users.empty()) return true;
    auto user = req_.header(opts().acl_http_header);
    if (!user) return false;
    for (const auto& u : opts().admin_users) {
      if (u == *user) return true;
    }
    return false;
  }

  // Keeps a gathered result's partial errors; true (and *fail set) if it failed everywhere.
  template <class T>
  bool upstream_failed(const Gathered<T>& g, const char* what, http::Response* fail) {
    if (g.fatal) {
      if (api_.log_) api_.log_->error("failed to {} - {}", what, *g.fatal);
      *fail = error(502, "UPSTREAM_ERROR: " + *g.fatal);
      return true;
    }
    if (!g.errors.empty()) {
      const std::string text = join_errors(g.errors);
      if (api_.log_) api_.log_->warn("{}", text);
      messages_.push_back(text);
    }
    return false;
  }

  std::string message() const { return warn_message(messages_); }

  http::Response topics() {
    http::Response fail;
    auto topics = ci().topics(lookupds(), nsqds());
    if (upstream_failed(topics, "get topics", &fail)) return fail;
    JsonOut out;
    out.begin_object();
    out.key("topics");
    if (req_.query_value("inactive") == std::optional<std::string>("true")) {
      // Topics lookupd knows but no nsqd produces, with their channels.
      out.begin_object();
      if (!lookupds().empty()) {
        for (const auto& topic : topics.value) {
          auto producers = ci().lookupd_topic_producers(topic, lookupds());
          if (!producers.value.empty()) continue;
          out.key(topic);
          out.strings(ci().lookupd_topic_channels(topic, lookupds()).value);
        }
      }
      out.end_object();
    } else {
      out.strings(topics.value);
    }
    out.key("message");
    out.string(message());
    out.end_object();
    return json_response(200, out.take());
  }

  http::Response topic(const std::string& name) {
    http::Response fail;
    auto producers = ci().topic_producers(name, lookupds(), nsqds());
    if (upstream_failed(producers, "get topic producers", &fail)) return fail;
    auto stats = ci().nsqd_stats(producers.value, name, "", false);
    if (upstream_failed(stats, "get nsqd stats", &fail)) return fail;
    TopicStats all;
    all.topic_name = name;
    for (const auto& t : stats.value.topics) all.add(t);
    JsonOut out;
    out.begin_object();
    out.topic_fields(all);
    if (graph_enabled()) {
      write_graphite(out, graphite::target(opts(), "*", name, "", "message_count"),
                     graphite::topic_charts(opts(), name));
    }
    out.key("message");
    out.string(message());
    out.end_object();
    return json_response(200, out.take());
  }

  http::Response channel(const std::string& topic, const std::string& name) {
    http::Response fail;
    auto producers = ci().topic_producers(topic, lookupds(), nsqds());
    if (upstream_failed(producers, "get topic producers", &fail)) return fail;
    auto stats = ci().nsqd_stats(producers.value, topic, name, true);
    if (upstream_failed(stats, "get nsqd stats", &fail)) return fail;
    JsonOut out;
    out.begin_object();
    auto it = stats.value.channels.find(name);
    if (it != stats.value.channels.end()) {
      out.channel_fields(it->second);
    } else {
      ChannelStats none;
      none.topic_name = topic;
      none.channel_name = name;
      out.channel_fields(none);
    }
    if (graph_enabled()) {
      write_graphite(out, graphite::target(opts(), "*", topic, name, "message_count"),
                     graphite::channel_charts(opts(), topic, name));
    }
    out.key("message");
    out.string(message());
    out.end_object();
    return json_response(200, out.take());
  }

  // nsq-cpp: what a channel holds, from each nsqd's /channel/peek.
  http::Response channel_peek(const std::string& topic, const std::string& name,
                              const http::Request& req) {
    std::string state(req.query_value("state").value_or("queued"));
    int n = 20;
    if (auto text = req.query_value("n")) {
      const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
      if (ec != std::errc() || end != text->data() + text->size() || n < 1 || n > 1000) {
        return error(400, "INVALID_N");
      }
    }
    if (state != "queued" && state != "in_flight" && state != "deferred") {
      return error(400, "INVALID_STATE");
    }
    http::Response fail;
    auto producers = ci().topic_producers(topic, lookupds(), nsqds());
    if (upstream_failed(producers, "get topic producers", &fail)) return fail;
    auto peeked = ci().channel_peek(producers.value, topic, name, state, n);
    if (upstream_failed(peeked, "peek", &fail)) return fail;
    JsonOut out;
    out.begin_object();
    out.key("nodes");
    out.begin_array();
    for (const auto& [node, messages] : peeked.value) {
      out.begin_object();
      out.key("node");
      out.string(node);
      out.key("messages");
      out.raw(messages);
      out.end_object();
    }
    out.end_array();
    out.key("message");
    out.string(message());
    out.end_object();
    return json_response(200, out.take());
  }

  http::Response nodes() {
    http::Response fail;
    auto producers = ci().producers(lookupds(), nsqds());
    if (upstream_failed(producers, "get nodes", &fail)) return fail;
    JsonOut out;
    out.begin_object();
    out.key("nodes");
    out.producers(producers.value);
    out.key("message");
    out.string(message());
    out.end_object();
    return json_response(200, out.take());
  }

  http::Response node(const std::string& name) {
    http::Response fail;
    auto producers = ci().producers(lookupds(), nsqds());
    if (upstream_failed(producers, "get producers", &fail)) return fail;
    const Producer* found = nullptr;
    for (const auto& p : producers.value) {
      if (p.http_address() == name) found = &p;
    }
    if (found == nullptr) return error(404, "NODE_NOT_FOUND");
    auto stats = ci().nsqd_stats({*found}, "", "", true);
    if (upstream_failed(stats, "get nsqd stats", &fail)) return fail;
    std::int64_t total_clients = 0;
    std::int64_t total_messages = 0;
    for (const auto& t : stats.value.topics) {
      for (const auto& c : t.channels) total_clients += static_cast<std::int64_t>(c.clients.size());
      total_messages += t.message_count;
    }
    JsonOut out;
    out.begin_object();
    out.key("node");
    out.string(name);
    out.key("topics");
    if (stats.value.topics.empty()) {
      out.null();
    } else {
      out.begin_array();
      for (const auto& t : stats.value.topics) out.topic(t);
      out.end_array();
    }
    out.key("total_messages");
    out.integer(total_messages);
    out.key("total_clients");
    out.integer(total_clients);
    if (!stats.value.draining.empty()) {  // nsq-cpp: the node drains
      out.key("draining");
      out.boolean(true);
    }
    if (graph_enabled()) {
      write_graphite(out, graphite::node_target(opts(), name, "message_count"),
                     graphite::node_charts(opts(), name));
    }
    out.key("message");
    out.string(message());
    out.end_object();
    return json_response(200, out.take());
  }

  http::Response counter() {
    http::Response fail;
    auto producers = ci().producers(lookupds(), nsqds());
    if (upstream_failed(producers, "get producers", &fail)) return fail;
    auto stats = ci().nsqd_stats(producers.value, "", "", false);
    if (upstream_failed(stats, "get nsqd stats", &fail)) return fail;
    JsonOut out;
    out.begin_object();
    out.key("stats");
    out.begin_object();
    for (const auto& [key, channel] : stats.value.channels) {
      for (const auto& per_node : channel.node_stats) {
        out.key(channel.topic_name + ":" + channel.channel_name + ":" + per_node.node);
        out.begin_object();
        out.key("node");
        out.string(per_node.node);
        out.key("topic_name");
        out.string(channel.topic_name);
        out.key("channel_name");
        out.string(channel.channel_name);
        out.key("message_count");
        out.integer(per_node.message_count);
        out.end_object();
      }
    }
    out.end_object();
    out.key("message");
    out.string(message());
    out.end_object();
    return json_response(200, out.take());
  }

  // The answer of every action: {"message": ""} or the warnings.
  http::Response action_done(const Outcome& outcome, const char* what) {
    http::Response fail;
    if (upstream_failed(outcome, what, &fail)) return fail;
    return json_response(200, message_json(message()));
  }

  void notify(const std::string& action, const std::string& topic, const std::string& channel,
              const std::string& node) {
    if (api_.notifier_ == nullptr) return;
    AdminAction a;
    a.action = action;
    a.topic = topic;
    a.channel = channel;
    a.node = node;
    a.timestamp = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    a.user = req_.header(opts().acl_http_header).value_or("");
    a.remote_ip = req_.remote_address;
    a.user_agent = req_.header("user-agent").value_or("");
    const bool https = req_.header("x-scheme") == std::optional<std::string>("https");
    a.url = std::string(https ? "https" : "http") + "://" + req_.header("host").value_or("") +
            req_.target;
    a.via = os_hostname();
    api_.notifier_->notify(std::move(a));
  }

  http::Response create_topic_channel() {
    if (!is_admin()) return error(403, "FORBIDDEN");
    auto body = decode_body(req_.body);
    if (!body) return error(400, body.error());
    const std::string topic = field(*body, "topic");
    const std::string channel = field(*body, "channel");
    if (!is_valid_topic_name(topic)) return error(400, "INVALID_TOPIC");
    if (!channel.empty() && !is_valid_channel_name(channel)) return error(400, "INVALID_CHANNEL");
    auto outcome = ci().create_topic_channel(topic, channel, lookupds(), nsqds());
    auto resp = action_done(outcome, "create topic/channel");
    if (resp.status == 200) {
      notify("create_topic", topic, "", "");
      if (!channel.empty()) notify("create_channel", topic, channel, "");
    }
    return resp;
  }

  http::Response topic_channel_action(const std::string& topic, const std::string& channel) {
    if (!is_admin()) return error(403, "FORBIDDEN");
    auto body = decode_body(req_.body);
    if (!body) return error(400, body.error());
    const std::string verb = field(*body, "action");
    if (verb != "pause" && verb != "unpause" && verb != "empty") {
      return error(400, "INVALID_ACTION");
    }
    auto outcome = ci().topic_channel_action(verb, topic, channel, lookupds(), nsqds());
    notify(verb + (channel.empty() ? "_topic" : "_channel"), topic, channel, "");
    return action_done(outcome, "act on topic/channel");
  }

  http::Response delete_topic(const std::string& topic) {
    if (!is_admin()) return error(403, "FORBIDDEN");
    auto outcome = ci().delete_topic(topic, lookupds(), nsqds());
    auto resp = action_done(outcome, "delete topic");
    if (resp.status == 200) notify("delete_topic", topic, "", "");
    return resp;
  }

  http::Response delete_channel(const std::string& topic, const std::string& channel) {
    if (!is_admin()) return error(403, "FORBIDDEN");
    auto outcome = ci().delete_channel(topic, channel, lookupds(), nsqds());
    auto resp = action_done(outcome, "delete channel");
    if (resp.status == 200) notify("delete_channel", topic, channel, "");
    return resp;
  }

  http::Response tombstone(const std::string& node) {
    if (!is_admin()) return error(403, "FORBIDDEN");
    auto body = decode_body(req_.body);
    if (!body) return error(400, "INVALID_BODY");
    const std::string topic = field(*body, "topic");
    if (!is_valid_topic_name(topic)) return error(400, "INVALID_TOPIC");
    auto outcome = ci().tombstone_node_for_topic(topic, node, lookupds());
    auto resp = action_done(outcome, "tombstone node for topic");
    if (resp.status == 200) notify("tombstone_topic_producer", topic, "", node);
    return resp;
  }

  http::Response index() {
    JsonOut cfg;
    cfg.begin_object();
    cfg.key("version");
    cfg.string("1.3.0");
    cfg.key("base_path");
    cfg.string(opts().base_path);
    cfg.key("history_enabled");
    cfg.boolean(api_.history_ != nullptr);
    cfg.key("history_interval_ms");
    cfg.integer(
        std::chrono::duration_cast<std::chrono::milliseconds>(opts().history_interval).count());
    cfg.key("graph_enabled");
    cfg.boolean(!opts().graphite_url.empty());
    cfg.key("graphite_url");
    cfg.string(opts().graphite_url);
    cfg.key("proxy_graphite");
    cfg.boolean(opts().proxy_graphite);
    cfg.key("statsd_interval");
    cfg.integer(std::chrono::duration_cast<std::chrono::seconds>(opts().statsd_interval).count());
    cfg.key("statsd_counter_format");
    cfg.string(opts().statsd_counter_format);
    cfg.key("statsd_gauge_format");
    cfg.string(opts().statsd_gauge_format);
    cfg.key("statsd_prefix");
    cfg.string(opts().statsd_prefix);
    cfg.key("nsqlookupd");
    cfg.begin_array();
    for (const auto& a : lookupds()) cfg.string(a);
    cfg.end_array();
    cfg.key("nsqd");
    cfg.begin_array();
    for (const auto& a : nsqds()) cfg.string(a);
    cfg.end_array();
    cfg.key("is_admin");
    cfg.boolean(is_admin());
    cfg.end_object();
    http::Response r;
    r.content_type = "text/html; charset=utf-8";
    std::string dev_page;
    std::optional<std::string_view> page;
    if (!opts().dev_static_dir.empty()) {
      if (auto a = read_dev_asset(opts().dev_static_dir, "index.html", &dev_page)) page = a->data;
    }
    r.body = render_index(opts().base_path, cfg.take(), page);
    return r;
  }

  // nsq-cpp: the history the poller keeps, parts = what follows /api/history.
  http::Response history(const std::vector<std::string>& parts) {
    if (api_.history_ == nullptr) return error(404, "HISTORY_DISABLED");
    History::Key key;
    const char* missing = "NOT_FOUND";
    if (parts.size() == 2 && parts[0] == "topics") {
      if (!is_valid_topic_name(parts[1])) return error(400, "INVALID_TOPIC");
      key = {History::Kind::topic, parts[1], ""};
      missing = "TOPIC_NOT_FOUND";
    } else if (parts.size() == 3 && parts[0] == "topics") {
      if (!is_valid_topic_name(parts[1])) return error(400, "INVALID_TOPIC");
      if (!is_valid_channel_name(parts[2])) return error(400, "INVALID_CHANNEL");
      key = {History::Kind::channel, parts[1], parts[2]};
      missing = "CHANNEL_NOT_FOUND";
    } else if (parts.size() == 2 && parts[0] == "nodes") {
      key = {History::Kind::node, parts[1], ""};
      missing = "NODE_NOT_FOUND";
    } else {
      return error(404, "NOT_FOUND");
    }
    auto view = api_.history_->get(key);
    // Not polled yet (a new topic waits one interval) or not in the cluster.
    if (!view) return error(404, missing);
    return json_response(200, history_json(api_.history_->shape(), *view));
  }

  http::Response asset(const std::string& name) {
    std::string storage;
    std::optional<Asset> a;
    if (!opts().dev_static_dir.empty()) {
      if (api_.log_) {
        api_.log_->debug("using dev dir {} for static asset {}", opts().dev_static_dir, name);
      }
      a = read_dev_asset(opts().dev_static_dir, name, &storage);
    } else {
      a = find_asset(name);
    }
    if (!a || name == "index.html") return error(404, "NOT_FOUND");
    http::Response r;
    r.content_type = std::string(a->content_type);
    r.body = std::string(a->data);
    return r;
  }

 private:
  const Api& api_;
  const http::Request& req_;
  std::shared_ptr<const Options> opts_;  // this request's view, even if /config changes them
  std::vector<std::string> messages_;
};

Api::Api(const Options* options, const ClusterInfo* cluster, Notifier* notifier,
         std::shared_ptr<spdlog::logger> log, const History* history)
    : options_(std::make_shared<const Options>(*options)),
      cluster_(cluster),
      notifier_(notifier),
      history_(history),
      log_(std::move(log)) {}

std::shared_ptr<const Options> Api::options() const {
  std::lock_guard lock(mu_);
  return options_;
}

void Api::swap_options(std::shared_ptr<const Options> next) const {
  std::lock_guard lock(mu_);
  options_ = std::move(next);
}

http::Response Api::handle(const http::Request& req) const {
  Handlers h(*this, req);
  const std::string& method = req.method;
  auto not_allowed = [] { return error(405, "METHOD_NOT_ALLOWED"); };

  // Every route lives under the base path, /ping included (Go registers
  // bp("/ping")).
  std::string_view path = req.path;
  const std::string& base = h.opts().base_path;
  if (base != "/") {
    if (path.substr(0, base.size()) != base ||
        (path.size() > base.size() && path[base.size()] != '/')) {
      return error(404, "NOT_FOUND");
    }
    path.remove_prefix(base.size());
  }
  const auto parts = split_path(path);
  const std::size_t n = parts.size();

  if (n == 1 && parts[0] == "ping") {
    if (method != "GET" && method != "HEAD") return not_allowed();
    http::Response r;
    r.body = "OK";
    return r;
  }

  // UI pages: the single-page app routes them itself.
  const bool page = n == 0 || (parts[0] == "topics" && n <= 3) || (parts[0] == "nodes" && n <= 2) ||
                    ((parts[0] == "counter" || parts[0] == "lookup") && n == 1);
  if (page) {
    if (method != "GET" && method != "HEAD") return not_allowed();
    return h.index();
  }
  if (parts[0] == "static" && n == 2) {
    if (method != "GET" && method != "HEAD") return not_allowed();
    return h.asset(parts[1]);
  }
  if (parts[0] == "config" && n == 2) {
    if (method != "GET" && method != "PUT") return not_allowed();
    return h.config(parts[1]);
  }
  if (parts[0] == "render" && n == 1 && h.opts().proxy_graphite) {
    if (method != "GET") return not_allowed();
    return h.graphite_proxy();
  }
  if (parts[0] != "api" || n < 2) return error(404, "NOT_FOUND");

  const std::string& what = parts[1];
  if (what == "topics") {
    if (n == 2) {
      if (method == "GET") return h.topics();
      if (method == "POST") return h.create_topic_channel();
      return not_allowed();
    }
    if (n == 3) {
      if (method == "GET") return h.topic(parts[2]);
      if (method == "POST") return h.topic_channel_action(parts[2], "");
      if (method == "DELETE") return h.delete_topic(parts[2]);
      return not_allowed();
    }
    if (n == 5 && parts[4] == "peek") {
      if (method == "GET") return h.channel_peek(parts[2], parts[3], req);
      return not_allowed();
    }
    if (n == 4) {
      if (method == "GET") return h.channel(parts[2], parts[3]);
      if (method == "POST") return h.topic_channel_action(parts[2], parts[3]);
      if (method == "DELETE") return h.delete_channel(parts[2], parts[3]);
      return not_allowed();
    }
  } else if (what == "nodes") {
    if (n == 2) {
      if (method == "GET") return h.nodes();
      return not_allowed();
    }
    if (n == 3) {
      if (method == "GET") return h.node(parts[2]);
      if (method == "DELETE") return h.tombstone(parts[2]);
      return not_allowed();
    }
  } else if (what == "counter" && n == 2) {
    if (method == "GET") return h.counter();
    return not_allowed();
  } else if (what == "history") {
    if (method != "GET") return not_allowed();
    return h.history(std::vector<std::string>(parts.begin() + 2, parts.end()));
  } else if (what == "graphite" && n == 2) {
    if (method == "GET") return h.graphite_rate();
    return not_allowed();
  }
  return error(404, "NOT_FOUND");
}

}  // namespace nsq::admin
