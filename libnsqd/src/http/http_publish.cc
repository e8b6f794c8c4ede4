// nsqd's HTTP publishing: /pub and /mpub (the answer waits for the disk
// where the messages went to disk).
#include "http/http_api.h"

#include <spdlog/logger.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "cluster/forwarder.h"
#include "core/broker.h"
#include "core/replication.h"
#include "http/replies.h"
#include "nsq/http/v1_api.h"
#include "nsq/mpub.h"
#include "nsq/names.h"
#include "nsqd/errc.h"

namespace nsq::nsqd {

using http::Request;
using http::v1_error;
using http_replies::declared_length_over;
using http_replies::ok_text;

namespace {

// Whether another node forwarded this publish (cluster mode): it is not
// forwarded again.
bool is_forwarded(const Request& req) { return req.header(cluster::kForwardedHeader).has_value(); }

}  // namespace

void HttpApi::publish(const std::string& topic_name, std::vector<std::string_view> bodies,
                      std::chrono::milliseconds defer, bool forwarded, const Reply& reply) {
  if (broker_.draining()) {
    reply(v1_error(503, "DRAINING"));
    return;
  }
  auto topic = broker_.get_or_create_topic(topic_name, Broker::ChannelQuery::on_this_thread);
  if (!topic) {
    reply(v1_error(503, "EXITING"));
    return;
  }
  if (topic->admit(bodies.size())) {  // bounded with the reject policy: all or nothing
    reply(v1_error(503, "TOPIC_FULL"));
    return;
  }
  // Cluster mode: only the topic's leader, with enough replicas in sync,
  // takes it. This runs on the blocking pool, which may wait.
  Replication* replication = broker_.replication();
  std::uint32_t epoch = 0;
  if (replication) {
    std::promise<Replication::Admission> admitted;
    std::optional<Replication::Admission> now =
        replication->admit(topic_name, [&](Replication::Admission a) { admitted.set_value(a); });
    auto admission = now ? std::move(*now) : admitted.get_future().get();
    if (!admission.accepted() && !admission.leader_http.empty() && !forwarded) {
      const std::string error =
          replication->forward(admission.leader_http, topic_name,
                               std::vector<std::string>(bodies.begin(), bodies.end()), defer);
      reply(error.empty() ? ok_text("OK") : v1_error(503, "PUB_FAILED - " + error));
      return;
    }
    if (!admission.accepted()) {
      reply(v1_error(503, "PUB_FAILED - " + admission.refusal));
      return;
    }
    epoch = admission.epoch;
  }
  DiskWrites spill;
  if (replication) {
    std::promise<Replication::Replicated> committed;
    replication->replicate(topic_name, epoch, bodies, defer_until_ms(defer),
                           [&](Replication::Replicated r) { committed.set_value(std::move(r)); });
    const Replication::Replicated replicated = committed.get_future().get();
    if (replicated.error) {
      reply(v1_error(503, "PUB_FAILED - " + replicated.error.message()));
      return;
    }
    // Committed: answered before the channels get the messages, as over
    // TCP (protocol/handlers/publish.cc).
    reply(ok_text("OK"));
    std::error_code ec = topic->publish_prepared(replicated.messages, defer, spill);
    if (!ec) ec = broker_.disk_writer().write(spill);
    if (ec && ec != make_error_code(errc::exiting)) {
      log_->error(
          "TOPIC({}): committed messages not given to its channels - {} (a takeover "
          "delivers them)",
          topic_name, ec.message());
    }
    return;
  }
  if (topic->publish(bodies, defer, spill)) {
    reply(v1_error(503, "EXITING"));
    return;
  }
  // Answered once the disk writes are done, without holding this thread
  // meanwhile (with --sync-publish, concurrent /pub requests share fsyncs).
  auto answer = [reply](std::error_code ec) {
    reply(ec ? v1_error(503, "EXITING") : ok_text("OK"));
  };
  if (auto now = broker_.disk_writer().submit(std::move(spill), answer)) answer(*now);
}

// The ?topic= of /pub and /mpub, created if new; nullopt once an error is replied.
std::optional<std::string> HttpApi::publish_topic(const Request& req, const Reply& reply) {
  if (req.bad_query) {
    reply(v1_error(400, "INVALID_REQUEST"));
    return std::nullopt;
  }
  auto topic = req.query_value("topic");
  if (!topic) {
    reply(v1_error(400, "MISSING_ARG_TOPIC"));
    return std::nullopt;
  }
  if (!is_valid_topic_name(*topic)) {
    reply(v1_error(400, "INVALID_TOPIC"));
    return std::nullopt;
  }
  if (broker_.draining()) {
    reply(v1_error(503, "DRAINING"));
    return std::nullopt;
  }
  if (!broker_.get_or_create_topic(*topic, Broker::ChannelQuery::on_this_thread)) {
    reply(v1_error(503, "EXITING"));
    return std::nullopt;
  }
  return topic;
}

namespace {

// The defer= of /pub and /mpub in ms: 0 when absent, nullopt when it is not
// an integer in 0..--max-defer-timeout (Go master's bound; --max-req-timeout
// unless given).
std::optional<std::chrono::milliseconds> defer_of(const Request& req, const Options& o) {
  auto d = req.query_value("defer");
  if (!d) return std::chrono::milliseconds(0);
  std::int64_t v = 0;
  // Go's ParseInt takes one leading sign, '+' included.
  std::string_view digits = *d;
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  const auto max_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.defer_limit()).count();
  if (ec != std::errc() || p != digits.data() + digits.size() || v < 0 || v > max_ms) {
    return std::nullopt;
  }
  return std::chrono::milliseconds(v);
}

}  // namespace

void HttpApi::do_pub(const Request& req, const Reply& reply) {
  const Options& o = broker_.options();
  if (declared_length_over(req, o.max_msg_size)) {
    reply(v1_error(413, "MSG_TOO_BIG"));
    return;
  }
  if (req.body_too_big || static_cast<std::int64_t>(req.body.size()) > o.max_msg_size) {
    reply(v1_error(413, "MSG_TOO_BIG"));
    return;
  }
  if (req.body.empty()) {
    reply(v1_error(400, "MSG_EMPTY"));
    return;
  }
  auto topic = publish_topic(req, reply);
  if (!topic) return;
  auto defer = defer_of(req, o);
  if (!defer) {
    reply(v1_error(400, "INVALID_DEFER"));
    return;
  }
  publish(*topic, {req.body}, *defer, is_forwarded(req), reply);
}

void HttpApi::do_mpub(const Request& req, const Reply& reply) {
  const Options& o = broker_.options();
  if (declared_length_over(req, o.max_body_size)) {
    reply(v1_error(413, "BODY_TOO_BIG"));
    return;
  }
  auto topic = publish_topic(req, reply);
  if (!topic) return;
  if (req.body_too_big || static_cast<std::int64_t>(req.body.size()) > o.max_body_size) {
    reply(v1_error(413, "BODY_TOO_BIG"));
    return;
  }
  // Go master's /mpub?defer=: one delay for every message of the batch.
  const auto defer = defer_of(req, o);
  if (!defer) {
    reply(v1_error(400, "INVALID_DEFER"));
    return;
  }
  // binary: absent, false or 0 is text; true, 1 or anything else is binary.
  auto binary_param = req.query_value("binary");
  bool binary = binary_param && *binary_param != "false" && *binary_param != "0";
  std::vector<std::string_view> bodies;
  if (binary) {
    auto parsed = parse_mpub_body(req.body, MpubLimits{o.max_msg_size, o.max_body_size});
    if (!parsed) {
      std::string code = parsed.error().code;
      if (code.starts_with("E_")) code = code.substr(2);
      reply(v1_error(413, code));
      return;
    }
    bodies = std::move(*parsed);
  } else {
    std::string_view rest = req.body;
    while (!rest.empty()) {
      std::size_t nl = rest.find('\n');
      std::string_view line = rest.substr(0, nl);
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
      if (line.empty()) continue;
      if (static_cast<std::int64_t>(line.size()) > o.max_msg_size) {
        reply(v1_error(413, "MSG_TOO_BIG"));
        return;
      }
      bodies.push_back(line);
    }
    if (bodies.empty()) {
      reply(ok_text("OK"));
      return;
    }
  }
  publish(*topic, std::move(bodies), *defer, is_forwarded(req), reply);
}

}  // namespace nsq::nsqd
