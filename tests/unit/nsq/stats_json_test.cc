// The /stats document: nsqd's writer (byte for byte as Go nsqd v1.3.0) and
// the parser nsq_stat and nsqadmin read it with.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nsq/stats/json.h"

namespace nsq::stats {
namespace {

bool parses(const std::string& body) { return parse_stats_json(body).has_value(); }

TEST(StatsJson, EmptySnapshot) {
  Snapshot s;
  s.start_time = 1700000000;
  EXPECT_EQ(
      write_stats_json(s),
      R"({"version":"1.3.0","health":"OK","start_time":1700000000,"topics":[],"producers":null})")
      << "Go's nil producer slice: null, not []";
}

TEST(StatsJson, NullTopicsNoClientsAndMemory) {
  Snapshot s;
  s.health = "NOK - disk full";
  s.topics_null = true;
  s.include_clients = false;
  s.memory = Memory{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto out = write_stats_json(s);
  EXPECT_EQ(out, R"({"version":"1.3.0","health":"NOK - disk full","start_time":0,"topics":null,)"
                 R"("memory":{"heap_objects":1,"heap_idle_bytes":2,"heap_in_use_bytes":3,)"
                 R"("heap_released_bytes":4,"gc_pause_usec_100":5,"gc_pause_usec_99":6,)"
                 R"("gc_pause_usec_95":7,"next_gc_bytes":8,"gc_total_runs":9},"producers":null})");
  EXPECT_TRUE(parses(out));
}

Client consumer() {
  Client c;
  c.client_id = "worker";
  c.hostname = "host.example";
  c.remote_address = "127.0.0.1:50000";
  c.state = 3;
  c.ready_count = 10;
  c.in_flight_count = 2;
  c.message_count = 100;
  c.finish_count = 97;
  c.requeue_count = 1;
  c.connect_ts = 1700000100;
  c.sample_rate = 0;
  c.snappy = true;
  c.user_agent = "go-nsq/1.1.0";
  return c;
}

// Topic orders: channel archive (paused, one consumer) and channel idle.
Topic orders() {
  Topic t;
  t.name = "orders";
  t.depth = 5;
  t.backend_depth = 3;
  t.message_count = 1000;
  t.message_bytes = 64000;
  t.e2e.configured = true;
  t.e2e.count = 1000;
  t.e2e.percentiles = {{1.0, 2500000.0}, {0.99, 1200000.0}};
  Channel c;
  c.name = "archive";
  c.depth = 1;
  c.in_flight_count = 2;
  c.deferred_count = 4;
  c.message_count = 1000;
  c.requeue_count = 7;
  c.timeout_count = 8;
  c.client_count = 1;
  c.paused = true;
  c.clients.push_back(consumer());
  c.e2e = t.e2e;
  t.channels.push_back(c);
  Channel empty;
  empty.name = "idle";
  t.channels.push_back(empty);
  return t;
}

TEST(StatsJson, TopicChannelClientLatency) {
  Snapshot s;
  s.start_time = 1700000000;
  s.topics.push_back(orders());
  Topic bare;
  bare.name = "bare";
  bare.paused = true;
  s.topics.push_back(bare);

  const std::string client =
      R"({"client_id":"worker","hostname":"host.example","version":"V2",)"
      R"("remote_address":"127.0.0.1:50000","state":3,"ready_count":10,"in_flight_count":2,)"
      R"("message_count":100,"finish_count":97,"requeue_count":1,"connect_ts":1700000100,)"
      R"("sample_rate":0,"deflate":false,"snappy":true,"user_agent":"go-nsq/1.1.0","tls":false,)"
      R"("tls_cipher_suite":"","tls_version":"","tls_negotiated_protocol":"",)"
      R"("tls_negotiated_protocol_is_mutual":false})";
  const std::string latency =
      R"({"count":1000,"percentiles":[{"quantile":1,"value":2500000},{"quantile":0.99,"value":1200000}]})";
  const std::string expected =
      R"({"version":"1.3.0","health":"OK","start_time":1700000000,"topics":[)"
      R"({"topic_name":"orders","channels":[)"
      R"({"channel_name":"archive","depth":1,"backend_depth":0,"in_flight_count":2,)"
      R"("deferred_count":4,"message_count":1000,"requeue_count":7,"timeout_count":8,)"
      R"("client_count":1,"clients":[)" +
      client + R"(],"paused":true,"e2e_processing_latency":)" + latency +
      "},"
      R"({"channel_name":"idle","depth":0,"backend_depth":0,"in_flight_count":0,)"
      R"("deferred_count":0,"message_count":0,"requeue_count":0,"timeout_count":0,)"
      R"("client_count":0,"clients":[],"paused":false,)"
      R"("e2e_processing_latency":{"count":0,"percentiles":null}}],)"
      R"("depth":5,"backend_depth":3,"message_count":1000,"message_bytes":64000,"paused":false,)"
      R"("e2e_processing_latency":)" +
      latency +
      "},"
      R"({"topic_name":"bare","channels":[],"depth":0,"backend_depth":0,"message_count":0,)"
      R"("message_bytes":0,"paused":true,"e2e_processing_latency":{"count":0,"percentiles":null}}],)"
      R"("producers":null})";
  const auto out = write_stats_json(s);
  EXPECT_EQ(out, expected);
  EXPECT_TRUE(parses(out));

  // Without clients: the channel's clients are null, client_count stays.
  s.include_clients = false;
  const auto no_clients = write_stats_json(s);
  EXPECT_NE(no_clients.find(R"("client_count":1,"clients":null,"paused":true)"), std::string::npos);
  EXPECT_NE(no_clients.find(R"("client_count":0,"clients":null,"paused":false)"),
            std::string::npos);
  EXPECT_TRUE(no_clients.ends_with(R"("producers":null})"));
}

TEST(StatsJson, ConfiguredLatencyWithoutPercentilesIsEmptyList) {
  Snapshot s;
  Topic t;
  t.name = "t";
  t.e2e.configured = true;
  s.topics.push_back(t);
  EXPECT_NE(write_stats_json(s).find(R"("e2e_processing_latency":{"count":0,"percentiles":[]})"),
            std::string::npos);
}

// A TLS client that authenticated and published: every optional key set.
Client producer(std::string client_id) {
  Client p = consumer();
  p.client_id = std::move(client_id);
  p.authed = true;
  p.auth_identity = "alice";
  p.auth_identity_url = "https://auth/alice?x=1&y=2";
  p.pub_counts = {{"orders", 5}, {"events", 6}};
  p.tls = true;
  p.tls_cipher_suite = "TLS_AES_128_GCM_SHA256";
  p.tls_version = "TLS1.3";
  p.tls_negotiated_protocol = "h2";
  p.tls_negotiated_protocol_is_mutual = true;
  return p;
}

TEST(StatsJson, ProducerOptionalKeys) {
  Snapshot s;
  s.producers.push_back(producer("pub<1>"));
  s.producers.push_back(consumer());
  const auto out = write_stats_json(s);
  EXPECT_TRUE(parses(out)) << out;
  EXPECT_NE(out.find(R"("client_id":"pub\u003c1\u003e")"), std::string::npos);
  EXPECT_NE(
      out.find(R"("user_agent":"go-nsq/1.1.0","authed":true,"auth_identity":"alice",)"
               R"("auth_identity_url":"https://auth/alice?x=1\u0026y=2",)"
               R"("pub_counts":[{"topic":"orders","count":5},{"topic":"events","count":6}],)"
               R"("tls":true,"tls_cipher_suite":"TLS_AES_128_GCM_SHA256","tls_version":"TLS1.3",)"
               R"("tls_negotiated_protocol":"h2","tls_negotiated_protocol_is_mutual":true})"),
      std::string::npos)
      << out;
  // The second producer omits all four optional keys.
  EXPECT_NE(out.find(R"("user_agent":"go-nsq/1.1.0","tls":false,)"), std::string::npos);
  EXPECT_EQ(out.find("authed\":false"), std::string::npos);
}

// What Go nsqd v1.3.0 answered (--e2e-processing-latency-percentile 1,
// 0.99, 0.5): a producer that published to orders and events (Go lists only
// the first in its pub_counts), a subscriber on orders/archive that FINed
// three messages, a paused channel, a topic without channels.
const std::string kGoStats =
    R"({"version":"1.3.0","health":"OK","start_time":1796279953,"topics":[{"topic_name":"bare",)"
    R"("channels":[],"depth":0,"backend_depth":0,"message_count":0,"message_bytes":0,)"
    R"("paused":false,"e2e_processing_latency":{"count":0,"percentiles":null}},)"
    R"({"topic_name":"events","channels":[{"channel_name":"paused_ch","depth":3,)"
    R"("backend_depth":0,"in_flight_count":0,"deferred_count":0,"message_count":3,)"
    R"("requeue_count":0,"timeout_count":0,"client_count":0,"clients":[],"paused":true,)"
    R"("e2e_processing_latency":{"count":0,"percentiles":[{"quantile":1,"value":0},)"
    R"({"quantile":0.99,"value":0},{"quantile":0.5,"value":0}]}}],"depth":0,"backend_depth":0,)"
    R"("message_count":3,"message_bytes":15,"paused":false,"e2e_processing_latency":{"count":0,)"
    R"("percentiles":[{"quantile":1,"value":0},{"quantile":0.99,"value":0},{"quantile":0.5,)"
    R"("value":0}]}},{"topic_name":"orders","channels":[{"channel_name":"archive","depth":0,)"
    R"("backend_depth":0,"in_flight_count":0,"deferred_count":0,"message_count":3,)"
    R"("requeue_count":0,"timeout_count":0,"client_count":1,"clients":[{"client_id":"worker",)"
    R"("hostname":"cons.example","version":"V2","remote_address":"127.0.0.1:36878","state":3,)"
    R"("ready_count":10,"in_flight_count":0,"message_count":3,"finish_count":3,)"
    R"("requeue_count":0,"connect_ts":1796279955,"sample_rate":0,"deflate":false,"snappy":false,)"
    R"("user_agent":"go-nsq/1.1.0","tls":false,"tls_cipher_suite":"","tls_version":"",)"
    R"("tls_negotiated_protocol":"","tls_negotiated_protocol_is_mutual":false}],"paused":false,)"
    R"("e2e_processing_latency":{"count":3,"percentiles":[{"quantile":1,"value":252423395},)"
    R"({"quantile":0.99,"value":252423395},{"quantile":0.5,"value":252423395}]}},)"
    R"({"channel_name":"idle","depth":0,"backend_depth":0,"in_flight_count":0,)"
    R"("deferred_count":0,"message_count":0,"requeue_count":0,"timeout_count":0,)"
    R"("client_count":0,"clients":[],"paused":false,"e2e_processing_latency":{"count":0,)"
    R"("percentiles":[{"quantile":1,"value":0},{"quantile":0.99,"value":0},{"quantile":0.5,)"
    R"("value":0}]}}],"depth":0,"backend_depth":0,"message_count":3,"message_bytes":15,)"
    R"("paused":false,"e2e_processing_latency":{"count":3,"percentiles":[{"quantile":1,)"
    R"("value":252423395},{"quantile":0.99,"value":252423395},{"quantile":0.5,)"
    R"("value":252423395}]}}],"memory":{"heap_objects":3655,"heap_idle_bytes":1572864,)"
    R"("heap_in_use_bytes":2097152,"heap_released_bytes":1540096,"gc_pause_usec_100":0,)"
    R"("gc_pause_usec_99":0,"gc_pause_usec_95":0,"next_gc_bytes":4194304,"gc_total_runs":0},)"
    R"("producers":[{"client_id":"pub\u003c1\u003e","hostname":"prod.example","version":"V2",)"
    R"("remote_address":"127.0.0.1:36862","state":0,"ready_count":0,"in_flight_count":0,)"
    R"("message_count":0,"finish_count":0,"requeue_count":0,"connect_ts":1796279955,)"
    R"("sample_rate":0,"deflate":false,"snappy":false,"user_agent":"probe/1.0 \u0026 co",)"
    R"("pub_counts":[{"topic":"orders","count":3}],"tls":false,"tls_cipher_suite":"",)"
    R"("tls_version":"","tls_negotiated_protocol":"",)"
    R"("tls_negotiated_protocol_is_mutual":false}]})";

// Go nsqd v1.3.0 (--e2e-processing-latency-percentile 0.99) for
// ?topic=orders&channel=archive&include_clients=false&include_mem=false.
const std::string kGoStatsNoClients =
    R"({"version":"1.3.0","health":"OK","start_time":1796280367,)"
    R"("topics":[{"topic_name":"orders","channels":[{"channel_name":"archive","depth":2,)"
    R"("backend_depth":0,"in_flight_count":0,"deferred_count":0,"message_count":2,)"
    R"("requeue_count":0,"timeout_count":0,"client_count":1,"clients":null,"paused":false,)"
    R"("e2e_processing_latency":{"count":0,"percentiles":[{"quantile":0.99,"value":0}]}}],)"
    R"("depth":0,"backend_depth":0,"message_count":2,"message_bytes":4,"paused":false,)"
    R"("e2e_processing_latency":{"count":0,"percentiles":[{"quantile":0.99,"value":0}]}}],)"
    R"("producers":null})";

// Go nsqd v1.3.0 for ?topic=nope, a topic it does not have.
const std::string kGoStatsNoTopic =
    R"({"version":"1.3.0","health":"OK","start_time":1796279953,"topics":null,)"
    R"("memory":{"heap_objects":4689,"heap_idle_bytes":1392640,"heap_in_use_bytes":2277376,)"
    R"("heap_released_bytes":1327104,"gc_pause_usec_100":0,"gc_pause_usec_99":0,)"
    R"("gc_pause_usec_95":0,"next_gc_bytes":4194304,"gc_total_runs":0},"producers":null})";

TEST(ParseStatsJson, GoNsqdDocument) {
  auto s = parse_stats_json(kGoStats);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->version, "1.3.0");
  EXPECT_EQ(s->start_time, 1796279953);
  EXPECT_TRUE(s->include_clients);
  EXPECT_FALSE(s->topics_null);
  ASSERT_EQ(s->topics.size(), 3u);
  const Topic& bare = s->topics[0];
  EXPECT_EQ(bare.name, "bare");
  EXPECT_TRUE(bare.channels.empty());
  EXPECT_FALSE(bare.e2e.configured) << "percentiles null";

  const Topic* orders = find_topic(*s, "orders");
  ASSERT_NE(orders, nullptr);
  EXPECT_EQ(orders->message_count, 3u);
  EXPECT_EQ(orders->message_bytes, 15u);
  EXPECT_TRUE(orders->e2e.configured);
  EXPECT_EQ(orders->e2e.count, 3u);
  ASSERT_EQ(orders->e2e.percentiles.size(), 3u);
  EXPECT_EQ(orders->e2e.percentiles[1], std::make_pair(0.99, 252423395.0));
  const Channel* archive = find_channel(*orders, "archive");
  ASSERT_NE(archive, nullptr);
  EXPECT_EQ(archive->client_count, 1);
  ASSERT_EQ(archive->clients.size(), 1u);
  const Client& worker = archive->clients[0];
  EXPECT_EQ(worker.client_id, "worker");
  EXPECT_EQ(worker.state, 3);
  EXPECT_EQ(worker.ready_count, 10);
  EXPECT_EQ(worker.finish_count, 3u);
  EXPECT_EQ(worker.user_agent, "go-nsq/1.1.0");
  EXPECT_EQ(find_channel(*orders, "missing"), nullptr);

  const Channel* paused = find_channel(*find_topic(*s, "events"), "paused_ch");
  ASSERT_NE(paused, nullptr);
  EXPECT_TRUE(paused->paused);
  EXPECT_EQ(paused->depth, 3);
  EXPECT_EQ(paused->memory_depth(), 3);

  ASSERT_TRUE(s->memory);
  EXPECT_EQ(s->memory->next_gc_bytes, 4194304);
  ASSERT_EQ(s->producers.size(), 1u);
  const Client& producer = s->producers[0];
  EXPECT_EQ(producer.client_id, "pub<1>");
  EXPECT_EQ(producer.user_agent, "probe/1.0 & co");
  EXPECT_EQ(producer.pub_counts, (std::vector<PubCount>{{"orders", 3}}));
}

TEST(ParseStatsJson, GoNsqdDocumentWritesBackByteForByte) {
  for (const std::string* go : {&kGoStats, &kGoStatsNoClients, &kGoStatsNoTopic}) {
    auto s = parse_stats_json(*go);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(write_stats_json(*s), *go);
  }
  auto s = parse_stats_json(kGoStatsNoClients);
  EXPECT_FALSE(s->include_clients) << "clients null";
  EXPECT_FALSE(s->memory);
  EXPECT_TRUE(s->producers.empty());
  s = parse_stats_json(kGoStatsNoTopic);
  EXPECT_TRUE(s->topics_null);
  EXPECT_TRUE(s->memory);
}

// A snapshot with every optional part: what nsqd writes parses back to the
// same model.
Snapshot everything() {
  Snapshot s;
  s.start_time = 1700000000;
  s.health = "NOK - <disk> \"full\"";
  s.memory = Memory{1, 2, 3, 4, 5, 6, 7, 8, 9};
  Topic t = orders();
  t.message_count = 18446744073709551615u;
  t.e2e.percentiles = {{1.0, 2500000.0}, {0.99, 1.25e-7}, {0.5, 1.5e21}, {0.25, -0.0}};
  t.channels[0].depth = -1;
  t.channels[1].e2e.configured = true;  // configured, no percentiles yet: []
  t.channels.push_back(Channel{});
  s.topics.push_back(t);
  s.producers = {producer("pub\xe2\x80\xa8"), consumer()};
  return s;
}

TEST(ParseStatsJson, RoundTrip) {
  const Snapshot s = everything();
  const std::string json = write_stats_json(s);
  auto back = parse_stats_json(json);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, s);
  EXPECT_EQ(write_stats_json(*back), json);
  EXPECT_NE(json.find(R"({"quantile":0.25,"value":-0})"), std::string::npos) << json;

  Snapshot none;
  none.topics_null = true;
  none.include_clients = false;
  back = parse_stats_json(write_stats_json(none));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->topics_null);
  EXPECT_EQ(write_stats_json(*back), write_stats_json(none));
}

TEST(ParseStatsJson, ReplicationRoundTripsAndIsAbsentOutsideClusterMode) {
  Snapshot s;
  s.topics.emplace_back().name = "plain";
  Topic& t = s.topics.emplace_back();
  t.name = "replicated";
  t.replication =
      Replication{"leader", 3, "a:4150", {"a:4150", "b:4150"}, {"a:4150"}, {{"b:4150", 12}}};
  const std::string json = write_stats_json(s);
  EXPECT_NE(json.find(R"("replication":{"role":"leader","epoch":3,"leader":"a:4150",)"
                      R"("replicas":["a:4150","b:4150"],"isr":["a:4150"],"lag":{"b:4150":12}})"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("replication"), json.rfind("replication")) << "only the replicated topic";
  auto back = parse_stats_json(json);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, s);
}

TEST(ParseStatsJson, WithoutClients) {
  Snapshot s = everything();
  s.include_clients = false;
  auto back = parse_stats_json(write_stats_json(s));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->include_clients);
  EXPECT_TRUE(back->producers.empty());
  EXPECT_TRUE(back->topics[0].channels[0].clients.empty());
  EXPECT_EQ(back->topics[0].channels[0].client_count, 1) << "the count stays";
}

TEST(ParseStatsJson, LenientAboutKeysAndNumbers) {
  auto s = parse_stats_json(
      R"({"topics":[{"topic_name":"t","depth":"7","backend_depth":2.9,"message_count":-1,)"
      R"("channels":[{"channel_name":"c","depth":1e30,"clients":[1,{"client_id":"x"}]},7]}],)"
      R"("unknown":{"a":[]},"memory":null,"producers":{}})");
  ASSERT_TRUE(s) << s.error();
  ASSERT_EQ(s->topics.size(), 1u);
  const Topic& t = s->topics[0];
  EXPECT_EQ(t.depth, 0) << "a string is not a number";
  EXPECT_EQ(t.backend_depth, 2) << "the fraction is dropped";
  EXPECT_EQ(t.message_count, 18446744073709551615u) << "as a cast";
  ASSERT_EQ(t.channels.size(), 1u) << "a non-object element is skipped";
  EXPECT_EQ(t.channels[0].depth, INT64_MAX) << "clamped";
  ASSERT_EQ(t.channels[0].clients.size(), 1u);
  EXPECT_EQ(t.channels[0].clients[0].version, "V2") << "absent: the model's default";
  EXPECT_FALSE(s->memory);
  EXPECT_EQ(s->version, "1.3.0");

  EXPECT_TRUE(parse_stats_json("{}"));
}

TEST(ParseStatsJson, NotAnObjectIsAnError) {
  EXPECT_EQ(parse_stats_json("not json").error(), "invalid JSON: Invalid value.");
  EXPECT_EQ(parse_stats_json("[1]").error(), "invalid JSON: not an object");
  EXPECT_FALSE(parse_stats_json(""));
  EXPECT_FALSE(parse_stats_json(R"({"topics":[)"));
  // Nesting deeper than any stack: an error, not a crash.
  EXPECT_FALSE(parse_stats_json(std::string(1'000'000, '[')));
  EXPECT_TRUE(
      parse_stats_json(R"({"x":)" + std::string(100'000, '[') + std::string(100'000, ']') + "}"));
}

}  // namespace
}  // namespace nsq::stats
