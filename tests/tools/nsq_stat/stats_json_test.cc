#include "stats_json.h"

#include <gtest/gtest.h>

namespace nsq::stat {
namespace {

const char* kStats = R"({"version":"1.3.0","health":"OK","start_time":1,"topics":[
 {"topic_name":"other","channels":[{"channel_name":"c","depth":99}],"depth":0},
 {"topic_name":"t","channels":[
   {"channel_name":"c","depth":12,"backend_depth":2,"in_flight_count":3,"deferred_count":4,
    "message_count":50,"requeue_count":5,"timeout_count":6,"client_count":2,"clients":null,
    "paused":false},
   {"channel_name":"d","depth":1}],
  "depth":0,"backend_depth":0,"message_count":50}],"producers":null})";

TEST(StatsJson, ChannelsOfTheTopic) {
  auto channels = parse_topic_channel_stats(kStats, "t");
  ASSERT_TRUE(channels) << channels.error();
  ASSERT_EQ(channels->size(), 2u);
  const stats::ChannelCounts& c = channels->at("c");
  EXPECT_EQ(c.depth, 12);
  EXPECT_EQ(c.backend_depth, 2);
  EXPECT_EQ(c.memory_depth(), 10);
  EXPECT_EQ(c.in_flight_count, 3);
  EXPECT_EQ(c.deferred_count, 4);
  EXPECT_EQ(c.message_count, 50u);
  EXPECT_EQ(c.requeue_count, 5u);
  EXPECT_EQ(c.timeout_count, 6u);
  EXPECT_EQ(c.client_count, 2);
}

TEST(StatsJson, NullTopicsMeansNoChannels) {
  auto channels = parse_topic_channel_stats(R"({"topics":null})", "t");
  ASSERT_TRUE(channels);
  EXPECT_TRUE(channels->empty());
  auto has = stats_has_topic(R"({"topics":null})", "t");
  ASSERT_TRUE(has);
  EXPECT_FALSE(*has);
  EXPECT_TRUE(*stats_has_topic(kStats, "other"));
}

TEST(StatsJson, BadJsonIsAnError) {
  EXPECT_FALSE(parse_topic_channel_stats("not json", "t"));
  EXPECT_FALSE(parse_lookup_producers("[1]"));
  EXPECT_FALSE(parse_info_producer(""));
}

TEST(StatsJson, LookupProducers) {
  auto producers = parse_lookup_producers(
      R"({"channels":["c"],"producers":[{"remote_address":"127.0.0.1:5","hostname":"h",)"
      R"("broadcast_address":"127.0.0.1","tcp_port":4150,"http_port":4151,"version":"1.3.0"},)"
      R"({"broadcast_address":"::1","tcp_port":1,"http_port":2}]})");
  ASSERT_TRUE(producers);
  ASSERT_EQ(producers->size(), 2u);
  EXPECT_EQ((*producers)[0].http_address(), "127.0.0.1:4151");
  EXPECT_EQ((*producers)[1].http_address(), "[::1]:2");
}

TEST(StatsJson, InfoProducer) {
  auto p = parse_info_producer(
      R"({"version":"1.3.0","broadcast_address":"host1","hostname":"host1","http_port":4151,)"
      R"("tcp_port":4150,"start_time":1})");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->http_address(), "host1:4151");
}

}  // namespace
}  // namespace nsq::stat
