#include "history_sampler.h"

#include <cstdio>
#include <limits>

namespace nsq::admin {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A sum of per-node rates; NaN when no node's rate was known this poll, so a
// chart shows a gap rather than a false zero.
struct RateSum {
  double sum = 0;
  bool any = false;
  void add(double v, bool known) {
    if (!known) return;
    sum += v;
    any = true;
  }
  double value() const { return any ? sum : kNaN; }
};

void add_latency(const LatencyAggregate& e, History::Values* out) {
  // nsqd reports nanoseconds; the aggregate's average is weighted by count.
  for (const auto& p : e.percentiles) out->emplace_back(latency_column(p.quantile), p.average);
}

}  // namespace

std::string latency_column(double quantile) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "e2e_p%g", quantile * 100);
  return buf;
}

HistorySampler::Rates HistorySampler::rates(const CountKey& key, const Counts& now,
                                            std::map<CountKey, Counts>* next) const {
  (*next)[key] = now;
  Rates r;
  auto it = previous_.find(key);
  if (it == previous_.end()) return r;
  const Counts& then = it->second;
  if (now.t_ms <= then.t_ms || now.messages < then.messages || now.requeues < then.requeues ||
      now.timeouts < then.timeouts) {
    return r;  // a restarted nsqd starts its counters over
  }
  const double seconds = static_cast<double>(now.t_ms - then.t_ms) / 1000.0;
  r.messages = static_cast<double>(now.messages - then.messages) / seconds;
  r.requeues = static_cast<double>(now.requeues - then.requeues) / seconds;
  r.timeouts = static_cast<double>(now.timeouts - then.timeouts) / seconds;
  r.known = true;
  return r;
}

std::vector<HistorySampler::Sample> HistorySampler::sample(const std::vector<TopicStats>& per_node,
                                                           const std::vector<std::string>& nodes,
                                                           std::int64_t t_ms) {
  struct ChannelAcc {
    RateSum messages, requeues, timeouts;
  };
  struct TopicAcc {
    TopicStats sum;
    RateSum messages, requeues, timeouts;
    std::map<std::string, ChannelAcc> channels;
  };
  struct NodeAcc {
    RateSum messages;
    bool has_topics = false;
    std::int64_t clients = 0;
    std::int64_t depth = 0;
  };
  std::map<std::string, TopicAcc> topics;
  std::map<std::string, NodeAcc> node_acc;
  for (const auto& n : nodes) node_acc[n];
  std::map<CountKey, Counts> next;

  for (const auto& t : per_node) {
    TopicAcc& acc = topics[t.topic_name];
    acc.sum.topic_name = t.topic_name;
    acc.sum.add(t);
    NodeAcc& node = node_acc[t.node];
    Counts tc;
    tc.t_ms = t_ms;
    tc.messages = static_cast<std::uint64_t>(t.message_count);
    const Rates tr = rates({t.node, t.topic_name, ""}, tc, &next);
    acc.messages.add(tr.messages, tr.known);
    node.messages.add(tr.messages, tr.known);
    node.has_topics = true;
    node.depth += t.depth;
    for (const auto& c : t.channels) {
      Counts cc;
      cc.t_ms = t_ms;
      cc.messages = c.message_count;
      cc.requeues = c.requeue_count;
      cc.timeouts = c.timeout_count;
      const Rates cr = rates({t.node, t.topic_name, c.channel_name}, cc, &next);
      ChannelAcc& ch = acc.channels[c.channel_name];
      ch.messages.add(cr.messages, cr.known);
      ch.requeues.add(cr.requeues, cr.known);
      ch.timeouts.add(cr.timeouts, cr.known);
      acc.requeues.add(cr.requeues, cr.known);
      acc.timeouts.add(cr.timeouts, cr.known);
      node.clients += c.client_count;
      node.depth += c.depth;
    }
  }
  previous_ = std::move(next);  // vanished nodes, topics and channels forgotten

  std::vector<Sample> out;
  for (const auto& [name, acc] : topics) {
    std::int64_t in_flight = 0;
    for (const auto& c : acc.sum.channels) in_flight += c.in_flight_count;
    History::Values v = {
        {"rate", acc.messages.value()},
        {"depth", static_cast<double>(acc.sum.depth)},
        {"in_flight", static_cast<double>(in_flight)},
        {"requeue_rate", acc.requeues.value()},
        {"timeout_rate", acc.timeouts.value()},
    };
    add_latency(acc.sum.e2e_processing_latency, &v);
    out.emplace_back(History::Key{History::Kind::topic, name, ""}, std::move(v));
    for (const auto& c : acc.sum.channels) {
      const ChannelAcc& ch = acc.channels.at(c.channel_name);
      History::Values cv = {
          {"rate", ch.messages.value()},
          {"depth", static_cast<double>(c.depth)},
          {"in_flight", static_cast<double>(c.in_flight_count)},
          {"deferred", static_cast<double>(c.deferred_count)},
          {"requeue_rate", ch.requeues.value()},
          {"timeout_rate", ch.timeouts.value()},
          {"clients", static_cast<double>(c.client_count)},
      };
      add_latency(c.e2e_processing_latency, &cv);
      out.emplace_back(History::Key{History::Kind::channel, name, c.channel_name}, std::move(cv));
    }
  }
  for (const auto& [name, acc] : node_acc) {
    History::Values v = {
        {"clients", static_cast<double>(acc.clients)},
        // A node with no topics publishes nothing: 0, not unknown.
        {"rate", acc.has_topics ? acc.messages.value() : 0.0},
        {"depth", static_cast<double>(acc.depth)},
    };
    out.emplace_back(History::Key{History::Kind::node, name, ""}, std::move(v));
  }
  return out;
}

}  // namespace nsq::admin
