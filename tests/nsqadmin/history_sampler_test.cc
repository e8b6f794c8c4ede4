// From polls of per-node stats to history samples
// (tools/nsqadmin/history_sampler.cc): rates from counter changes, summed
// over nodes, and what a missing or restarted node does to them.
#include "history_sampler.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nsq::admin {
namespace {

TopicStats topic_on(const std::string& node, const std::string& name, std::int64_t messages,
                    std::int64_t depth) {
  TopicStats t;
  t.node = node;
  t.topic_name = name;
  t.message_count = messages;
  t.depth = depth;
  return t;
}

ChannelStats channel_of(const std::string& node, const std::string& topic, const std::string& name,
                        std::uint64_t messages, std::int64_t clients) {
  ChannelStats c;
  c.node = node;
  c.topic_name = topic;
  c.channel_name = name;
  c.message_count = messages;
  c.client_count = clients;
  c.in_flight_count = 2;
  return c;
}

double value(const std::vector<HistorySampler::Sample>& samples, History::Kind kind,
             const std::string& name, const std::string& channel, const std::string& column) {
  for (const auto& [key, values] : samples) {
    if (key.kind != kind || key.name != name || key.channel != channel) continue;
    for (const auto& [c, v] : values) {
      if (c == column) return v;
    }
  }
  ADD_FAILURE() << "no " << column << " for " << name << "/" << channel;
  return -1;
}

TEST(NsqadminHistorySampler, RatesAreCounterChangesPerSecondSummedOverNodes) {
  HistorySampler s;
  const std::vector<std::string> nodes = {"a:1", "b:1", "idle:1"};
  auto poll = [&](std::int64_t t_ms, std::int64_t a_count, std::int64_t b_count) {
    auto ta = topic_on("a:1", "orders", a_count, 5);
    ta.channels.push_back(channel_of("a:1", "orders", "billing", a_count, 3));
    auto tb = topic_on("b:1", "orders", b_count, 7);
    tb.channels.push_back(channel_of("b:1", "orders", "billing", b_count, 1));
    return s.sample({ta, tb}, nodes, t_ms);
  };
  auto first = poll(10'000, 100, 1000);
  // Gauges at once; rates need a second poll.
  EXPECT_EQ(value(first, History::Kind::topic, "orders", "", "depth"), 12);
  EXPECT_EQ(value(first, History::Kind::topic, "orders", "", "in_flight"), 4);
  EXPECT_TRUE(std::isnan(value(first, History::Kind::topic, "orders", "", "rate")));
  EXPECT_EQ(value(first, History::Kind::channel, "orders", "billing", "clients"), 4);
  EXPECT_EQ(value(first, History::Kind::node, "a:1", "", "clients"), 3);
  EXPECT_EQ(value(first, History::Kind::node, "idle:1", "", "clients"), 0);
  EXPECT_EQ(value(first, History::Kind::node, "idle:1", "", "rate"), 0);

  auto second = poll(12'000, 120, 1100);  // +20 and +100 in 2 s
  EXPECT_DOUBLE_EQ(value(second, History::Kind::topic, "orders", "", "rate"), 60);
  EXPECT_DOUBLE_EQ(value(second, History::Kind::channel, "orders", "billing", "rate"), 60);
  EXPECT_DOUBLE_EQ(value(second, History::Kind::node, "a:1", "", "rate"), 10);
  EXPECT_DOUBLE_EQ(value(second, History::Kind::node, "b:1", "", "rate"), 50);

  // b restarted (its counters went back to 0): its part is left out once.
  auto third = poll(14'000, 140, 0);
  EXPECT_DOUBLE_EQ(value(third, History::Kind::topic, "orders", "", "rate"), 10);
  auto fourth = poll(16'000, 160, 40);
  EXPECT_DOUBLE_EQ(value(fourth, History::Kind::topic, "orders", "", "rate"), 30);
}

TEST(NsqadminHistorySampler, NodeMissingFromAPollDoesNotMakeTheRateJump) {
  HistorySampler s;
  auto a = [](std::int64_t n) { return topic_on("a:1", "t", n, 0); };
  auto b = [](std::int64_t n) { return topic_on("b:1", "t", n, 0); };
  s.sample({a(0), b(0)}, {"a:1", "b:1"}, 1000);
  auto without_b = s.sample({a(10)}, {"a:1"}, 2000);
  EXPECT_DOUBLE_EQ(value(without_b, History::Kind::topic, "t", "", "rate"), 10);
  // b is back with a big count: its first poll again, no rate from it.
  auto back = s.sample({a(20), b(5000)}, {"a:1", "b:1"}, 3000);
  EXPECT_DOUBLE_EQ(value(back, History::Kind::topic, "t", "", "rate"), 10);
}

TEST(NsqadminHistorySampler, LatencyQuantilesBecomeColumns) {
  EXPECT_EQ(latency_column(0.99), "e2e_p99");
  EXPECT_EQ(latency_column(0.5), "e2e_p50");
  EXPECT_EQ(latency_column(0.999), "e2e_p99.9");
  HistorySampler s;
  auto t = topic_on("a:1", "t", 0, 0);
  LatencyPercentile p;
  p.quantile = 0.99;
  p.average = 2e6;
  p.count = 1;
  t.e2e_processing_latency.count = 1;
  t.e2e_processing_latency.percentiles.push_back(p);
  auto out = s.sample({t}, {"a:1"}, 1000);
  EXPECT_DOUBLE_EQ(value(out, History::Kind::topic, "t", "", "e2e_p99"), 2e6);
}

}  // namespace
}  // namespace nsq::admin
