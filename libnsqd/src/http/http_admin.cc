// nsqd's HTTP administration: /topic/*, /channel/* and /config/*.
#include "http/http_api.h"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <string>
#include <vector>

#include "config/config_values.h"
#include "config/option_fields.h"
#include "core/broker.h"
#include "core/queue_settings.h"
#include "http/replies.h"
#include "nsq/http/v1_api.h"
#include "nsq/json/writer.h"
#include "nsq/names.h"
#include "nsq/utf8.h"
#include "stats/statsd.h"

namespace nsq::nsqd {

using http::Request;
using http::v1_error;
using http::v1_json;
using http_replies::ok_text;

void HttpApi::do_topic(const std::string& action, const Request& req, const Reply& reply) {
  auto name = req.query_value("topic");
  if (!name) {
    reply(v1_error(400, "MISSING_ARG_TOPIC"));
    return;
  }
  // delete, pause and unpause look the name up without validating it (as Go).
  bool validate = action == "create" || action == "empty";
  if (validate && !is_valid_topic_name(*name)) {
    reply(v1_error(400, "INVALID_TOPIC"));
    return;
  }
  if (action == "create") {
    // Cluster mode: replicas=N places the topic on N nodes (ours).
    if (auto replicas = req.query_value("replicas"); replicas && cluster_.place_topic) {
      int n = 0;
      const auto [end, ec] =
          std::from_chars(replicas->data(), replicas->data() + replicas->size(), n);
      if (ec != std::errc() || end != replicas->data() + replicas->size() || n < 1) {
        reply(v1_error(400, "INVALID_REPLICAS"));
        return;
      }
      cluster_.place_topic(*name, n);
    }
    if (broker_.draining() && !broker_.find_topic(*name)) {
      reply(v1_error(503, "DRAINING"));
      return;
    }
    reply(broker_.get_or_create_topic(*name, Broker::ChannelQuery::on_this_thread)
              ? ok_text()
              : v1_error(503, "EXITING"));
    return;
  }
  if (action == "delete") {
    reply(broker_.delete_topic(*name) ? ok_text() : v1_error(404, "TOPIC_NOT_FOUND"));
    return;
  }
  auto topic = broker_.find_topic(*name);
  if (!topic) {
    reply(v1_error(404, "TOPIC_NOT_FOUND"));
    return;
  }
  if (action == "empty") {
    reply(topic->empty() ? v1_error(500, "INTERNAL_ERROR") : ok_text());
    return;
  }
  if (action == "pause") {
    topic->pause();
  } else {
    topic->unpause();
  }
  reply(broker_.save_metadata() ? v1_error(500, "INTERNAL_ERROR") : ok_text());
}

void HttpApi::do_channel(const std::string& action, const Request& req, const Reply& reply) {
  auto args = http::topic_channel_args(req);
  if (!args) {
    reply(std::move(args.error()));
    return;
  }
  const std::string& channel_name = args->channel;
  auto topic = broker_.find_topic(args->topic);
  if (!topic) {
    reply(v1_error(404, "TOPIC_NOT_FOUND"));
    return;
  }
  if (action == "create") {
    if (broker_.draining() && !topic->find_channel(channel_name)) {
      reply(v1_error(503, "DRAINING"));
      return;
    }
    reply(topic->get_or_create_channel(channel_name) ? ok_text() : v1_error(503, "EXITING"));
    return;
  }
  if (action == "delete") {
    reply(topic->delete_channel(channel_name) ? ok_text() : v1_error(404, "CHANNEL_NOT_FOUND"));
    return;
  }
  auto channel = topic->find_channel(channel_name);
  if (!channel) {
    reply(v1_error(404, "CHANNEL_NOT_FOUND"));
    return;
  }
  if (action == "empty") {
    reply(channel->empty() ? v1_error(500, "INTERNAL_ERROR") : ok_text());
    return;
  }
  if (action == "pause") {
    channel->pause();
  } else {
    channel->unpause();
  }
  reply(broker_.save_metadata() ? v1_error(500, "INTERNAL_ERROR") : ok_text());
}

// GET: a topic's or channel's settings; POST: the JSON body's fields
// replace those settings, all or none (docs/operations.md).
void HttpApi::do_settings(bool of_channel, const Request& req, const Reply& reply) {
  std::shared_ptr<Topic> topic;
  std::shared_ptr<Channel> channel;
  if (of_channel) {
    auto args = http::topic_channel_args(req);
    if (!args) {
      reply(std::move(args.error()));
      return;
    }
    topic = broker_.find_topic(args->topic);
    if (topic) channel = topic->find_channel(args->channel);
    if (topic && !channel) {
      reply(v1_error(404, "CHANNEL_NOT_FOUND"));
      return;
    }
  } else {
    auto name = req.query_value("topic");
    if (!name) {
      reply(v1_error(400, "MISSING_ARG_TOPIC"));
      return;
    }
    topic = broker_.find_topic(*name);
  }
  if (!topic) {
    reply(v1_error(404, "TOPIC_NOT_FOUND"));
    return;
  }
  const SettingsScope scope = of_channel ? SettingsScope::channel : SettingsScope::topic;
  QueueSettings current = of_channel ? channel->settings() : topic->settings();
  if (req.method == "POST") {
    if (req.body_too_big) {
      reply(v1_error(413, "BODY_TOO_BIG"));
      return;
    }
    auto next = apply_settings_json(current, req.body, scope);
    if (!next) {
      reply(v1_error(400, "INVALID_SETTINGS - " + next.error()));
      return;
    }
    current = std::move(*next);
    if (of_channel) {
      channel->set_settings(current);
    } else {
      topic->set_settings(current);
    }
    if (!topic->ephemeral() && (!channel || !channel->ephemeral()) && broker_.save_metadata()) {
      reply(v1_error(500, "INTERNAL_ERROR"));
      return;
    }
  }
  reply(v1_json(settings_json(current, scope)));
}

// GET /topic/peek?topic=T&n=N and /channel/peek?topic=T&channel=C&n=N
// &state=queued|in_flight|deferred: copies, nothing consumed (docs/operations.md).
void HttpApi::do_peek(bool of_channel, const Request& req, const Reply& reply) {
  std::size_t n = 10;
  if (auto text = req.query_value("n")) {
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || end != text->data() + text->size() || v < 1 || v > kMaxPeek) {
      reply(v1_error(400, "INVALID_N - want 1.." + std::to_string(kMaxPeek)));
      return;
    }
    n = v;
  }
  PeekState state = PeekState::queued;
  if (auto s = req.query_value("state"); s && of_channel) {
    if (*s == "in_flight") {
      state = PeekState::in_flight;
    } else if (*s == "deferred") {
      state = PeekState::deferred;
    } else if (*s != "queued") {
      reply(v1_error(400, "INVALID_STATE - want queued, in_flight or deferred"));
      return;
    }
  }
  std::string topic_name;
  std::string channel_name;
  if (of_channel) {
    auto args = http::topic_channel_args(req);
    if (!args) {
      reply(std::move(args.error()));
      return;
    }
    topic_name = args->topic;
    channel_name = args->channel;
  } else {
    auto name = req.query_value("topic");
    if (!name) {
      reply(v1_error(400, "MISSING_ARG_TOPIC"));
      return;
    }
    topic_name = std::string(*name);
  }
  auto topic = broker_.find_topic(topic_name);
  if (!topic) {
    reply(v1_error(404, "TOPIC_NOT_FOUND"));
    return;
  }
  if (!of_channel) {
    reply(v1_json(peek_json(topic->peek(n))));
    return;
  }
  auto channel = topic->find_channel(channel_name);
  if (!channel) {
    reply(v1_error(404, "CHANNEL_NOT_FOUND"));
    return;
  }
  reply(v1_json(peek_json(channel->peek(state, n))));
}

void HttpApi::do_config(const std::string& opt, const Request& req, const Reply& reply) {
  // Go shows the ports it listens on when no broadcast port was given, and
  // the statsd prefix as expanded at start-up.
  auto render = [&](const Options& runtime) {
    Options o = runtime;
    if (o.broadcast_tcp_port == 0 && node_.tcp_port) o.broadcast_tcp_port = node_.tcp_port();
    if (o.broadcast_http_port == 0 && node_.http_port) o.broadcast_http_port = node_.http_port();
    o.statsd_prefix =
        expand_statsd_prefix(o.statsd_prefix, o.broadcast_address, o.broadcast_http_port);
    if (opt == "nsqlookupd_tcp_addresses" && lookupd_addresses_null_) return v1_json("null");
    auto v = config_value(o, opt);
    return v->json ? v1_json(v->body) : ok_text(v->body);
  };
  if (opt == "drain" || opt == "shutdown") {
    do_lifecycle(opt, req, reply);
    return;
  }
  if (req.method == "GET") {
    std::lock_guard lock(mu_);
    if (!config_value(runtime_, opt)) {
      reply(v1_error(400, "INVALID_OPTION"));
      return;
    }
    reply(render(runtime_));
    return;
  }
  // PUT
  if (req.body_too_big || req.body.empty() ||
      static_cast<std::int64_t>(req.body.size()) > broker_.options().max_msg_size) {
    reply(v1_error(413, "INVALID_VALUE"));
    return;
  }
  if (opt == "log_level") {
    auto level = detail::parse_log_level(req.body);
    if (!level) {
      reply(v1_error(400, "INVALID_VALUE"));
      return;
    }
    set_go_log_level(*log_, *level);
    std::lock_guard lock(mu_);
    runtime_.log_level = *level;
    reply(render(runtime_));
    return;
  }
  if (opt == "nsqlookupd_tcp_addresses") {
    // As Go's json.Unmarshal into []string: null or an array of strings;
    // duplicates and any string are taken (Go only logs what it cannot reach).
    rapidjson::Document doc;
    doc.Parse(req.body.data(), req.body.size());
    bool ok = !doc.HasParseError() && (doc.IsNull() || doc.IsArray());
    std::vector<std::string> addresses;
    if (ok && doc.IsArray()) {
      for (const auto& v : doc.GetArray()) {
        if (!v.IsString()) {
          ok = false;
          break;
        }
        // Go's decoder stores each invalid UTF-8 byte as U+FFFD.
        addresses.push_back(utf8::sanitize(std::string_view(v.GetString(), v.GetStringLength())));
      }
    }
    if (!ok) {
      reply(v1_error(400, "INVALID_VALUE"));
      return;
    }
    // The lookup loop connects to each distinct host:port once.
    std::vector<std::string> peers;
    for (const auto& a : addresses) {
      if (a.find(':') == std::string::npos) continue;
      if (std::find(peers.begin(), peers.end(), a) == peers.end()) peers.push_back(a);
    }
    std::function<void(std::vector<std::string>)> callback;
    {
      std::lock_guard lock(mu_);
      runtime_.lookupd_tcp_addresses = addresses;
      lookupd_addresses_null_ = doc.IsNull();
      callback = on_lookupd_changed_;
    }
    if (callback) callback(std::move(peers));
    std::lock_guard lock(mu_);
    reply(render(runtime_));
    return;
  }
  reply(v1_error(400, "INVALID_OPTION"));
}

// Not options but actions (ours; docs/operations.md): PUT /config/drain
// starts a drain (any body; GET shows whether one runs), PUT
// /config/shutdown shuts down cleanly at once, even while draining.
void HttpApi::do_lifecycle(const std::string& opt, const Request& req, const Reply& reply) {
  if (req.method == "GET") {
    if (opt == "drain") {
      reply(v1_json(broker_.draining() ? "true" : "false"));
    } else {
      reply(v1_error(400, "INVALID_OPTION"));
    }
    return;
  }
  if (opt == "drain") {
    if (lifecycle_.drain) lifecycle_.drain();
    reply(v1_json("true"));
    return;
  }
  reply(ok_text("OK"));
  if (lifecycle_.shutdown) lifecycle_.shutdown();
}

std::vector<std::string> HttpApi::lookupd_tcp_addresses() const {
  std::lock_guard lock(mu_);
  return runtime_.lookupd_tcp_addresses;
}

void HttpApi::on_lookupd_addresses_changed(std::function<void(std::vector<std::string>)> callback) {
  std::lock_guard lock(mu_);
  on_lookupd_changed_ = std::move(callback);
}

}  // namespace nsq::nsqd
