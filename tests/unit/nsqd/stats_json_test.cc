#include "stats/stats_json.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <limits>

namespace nsq::nsqd {
namespace {

std::string dbl(double v) {
  std::string s;
  json::append_double(s, v);
  return s;
}

std::string str(std::string_view v) {
  std::string s;
  json::append_string(s, v);
  return s;
}

bool parses(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.c_str(), body.size());
  return !d.HasParseError();
}

TEST(StatsJsonDouble, GoEncodingJsonFormatting) {
  EXPECT_EQ(dbl(0.99), "0.99");
  EXPECT_EQ(dbl(1.0), "1");
  EXPECT_EQ(dbl(0), "0");
  EXPECT_EQ(dbl(-0.0), "-0");
  EXPECT_EQ(dbl(0.5), "0.5");
  EXPECT_EQ(dbl(1234567.0), "1234567");
  EXPECT_EQ(dbl(123456789012.0), "123456789012");
  EXPECT_EQ(dbl(1e20), "100000000000000000000");
  EXPECT_EQ(dbl(1e21), "1e+21");
  EXPECT_EQ(dbl(1.5e21), "1.5e+21");
  EXPECT_EQ(dbl(1e100), "1e+100");
  EXPECT_EQ(dbl(0.000001), "0.000001");  // 1e-6 is still 'f'
  EXPECT_EQ(dbl(1e-7), "1e-7");          // e-07 shortened
  EXPECT_EQ(dbl(1.25e-7), "1.25e-7");
  EXPECT_EQ(dbl(1e-10), "1e-10");
  EXPECT_EQ(dbl(-2.5e-9), "-2.5e-9");
  EXPECT_EQ(dbl(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(dbl(std::numeric_limits<double>::quiet_NaN()), "0");
}

TEST(StatsJsonString, GoEscaping) {
  EXPECT_EQ(str("plain"), "\"plain\"");
  EXPECT_EQ(str("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(str("\n\r\t"), "\"\\n\\r\\t\"");
  EXPECT_EQ(str(std::string_view("\x00\x01\x08\x0c\x1f", 5)), "\"\\u0000\\u0001\\u0008\\u000c\\u001f\"");
  EXPECT_EQ(str("<a&b>"), "\"\\u003ca\\u0026b\\u003e\"");
  EXPECT_EQ(str("\x7f"), "\"\x7f\"");
  EXPECT_EQ(str("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  EXPECT_EQ(str("\xe2\x80\xa8|\xe2\x80\xa9"), "\"\\u2028|\\u2029\"");
  // Invalid UTF-8: a lone continuation, a truncated sequence, an overlong
  // encoding, a surrogate and a value above U+10FFFF, byte by byte.
  EXPECT_EQ(str("a\x80z"), "\"a\\ufffdz\"");
  EXPECT_EQ(str("\xe2\x82"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(str("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(str("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
  EXPECT_EQ(str("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
  EXPECT_EQ(str("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");
}

TEST(StatsJson, EmptySnapshot) {
  stats::Snapshot s;
  s.start_time = 1700000000;
  EXPECT_EQ(render_stats_json(s),
            R"({"version":"1.3.0","health":"OK","start_time":1700000000,"topics":[],"producers":null})")
      << "Go's nil producer slice: null, not []";
}

TEST(StatsJson, NullTopicsNoClientsAndMemory) {
  stats::Snapshot s;
  s.health = "NOK - disk full";
  s.topics_null = true;
  s.include_clients = false;
  s.memory = stats::Memory{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto out = render_stats_json(s);
  EXPECT_EQ(out,
            R"({"version":"1.3.0","health":"NOK - disk full","start_time":0,"topics":null,)"
            R"("memory":{"heap_objects":1,"heap_idle_bytes":2,"heap_in_use_bytes":3,)"
            R"("heap_released_bytes":4,"gc_pause_usec_100":5,"gc_pause_usec_99":6,)"
            R"("gc_pause_usec_95":7,"next_gc_bytes":8,"gc_total_runs":9},"producers":null})");
  EXPECT_TRUE(parses(out));
}

stats::Client consumer() {
  stats::Client c;
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

TEST(StatsJson, TopicChannelClientLatency) {
  stats::Snapshot s;
  s.start_time = 1700000000;
  stats::Topic t;
  t.name = "orders";
  t.depth = 5;
  t.backend_depth = 3;
  t.message_count = 1000;
  t.message_bytes = 64000;
  t.e2e.configured = true;
  t.e2e.count = 1000;
  t.e2e.percentiles = {{1.0, 2500000.0}, {0.99, 1200000.0}};
  stats::Channel c;
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
  stats::Channel empty;
  empty.name = "idle";
  t.channels.push_back(empty);
  s.topics.push_back(t);
  stats::Topic bare;
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
      R"("client_count":1,"clients":[)" + client + R"(],"paused":true,"e2e_processing_latency":)" +
      latency + "},"
      R"({"channel_name":"idle","depth":0,"backend_depth":0,"in_flight_count":0,)"
      R"("deferred_count":0,"message_count":0,"requeue_count":0,"timeout_count":0,)"
      R"("client_count":0,"clients":[],"paused":false,)"
      R"("e2e_processing_latency":{"count":0,"percentiles":null}}],)"
      R"("depth":5,"backend_depth":3,"message_count":1000,"message_bytes":64000,"paused":false,)"
      R"("e2e_processing_latency":)" + latency + "},"
      R"({"topic_name":"bare","channels":[],"depth":0,"backend_depth":0,"message_count":0,)"
      R"("message_bytes":0,"paused":true,"e2e_processing_latency":{"count":0,"percentiles":null}}],)"
      R"("producers":null})";
  const auto out = render_stats_json(s);
  EXPECT_EQ(out, expected);
  EXPECT_TRUE(parses(out));

  // Without clients: the channel's clients are null, client_count stays.
  s.include_clients = false;
  const auto no_clients = render_stats_json(s);
  EXPECT_NE(no_clients.find(R"("client_count":1,"clients":null,"paused":true)"), std::string::npos);
  EXPECT_NE(no_clients.find(R"("client_count":0,"clients":null,"paused":false)"), std::string::npos);
  EXPECT_TRUE(no_clients.ends_with(R"("producers":null})"));
}

TEST(StatsJson, ConfiguredLatencyWithoutPercentilesIsEmptyList) {
  stats::Snapshot s;
  stats::Topic t;
  t.name = "t";
  t.e2e.configured = true;
  s.topics.push_back(t);
  EXPECT_NE(render_stats_json(s).find(R"("e2e_processing_latency":{"count":0,"percentiles":[]})"),
            std::string::npos);
}

TEST(StatsJson, ProducerOptionalKeys) {
  stats::Snapshot s;
  stats::Client p = consumer();
  p.client_id = "pub<1>";
  p.authed = true;
  p.auth_identity = "alice";
  p.auth_identity_url = "https://auth/alice?x=1&y=2";
  p.pub_counts = {{"orders", 5}, {"events", 6}};
  p.tls = true;
  p.tls_cipher_suite = "TLS_AES_128_GCM_SHA256";
  p.tls_version = "TLS1.3";
  p.tls_negotiated_protocol = "h2";
  p.tls_negotiated_protocol_is_mutual = true;
  s.producers.push_back(p);
  s.producers.push_back(consumer());
  const auto out = render_stats_json(s);
  EXPECT_TRUE(parses(out)) << out;
  EXPECT_NE(out.find(R"("client_id":"pub\u003c1\u003e")"), std::string::npos);
  EXPECT_NE(out.find(R"("user_agent":"go-nsq/1.1.0","authed":true,"auth_identity":"alice",)"
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

TEST(StatsJson, ParsesBackWithRapidJson) {
  stats::Snapshot s;
  stats::Topic t;
  t.name = "x#ephemeral";
  t.e2e.configured = true;
  t.e2e.count = 3;
  t.e2e.percentiles = {{0.5, 1e-7}, {0.25, 1.5e21}};
  s.topics.push_back(t);
  const auto out = render_stats_json(s);
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError()) << out;
  const auto& p = d["topics"][0]["e2e_processing_latency"]["percentiles"];
  ASSERT_EQ(p.Size(), 2u);
  EXPECT_DOUBLE_EQ(p[0]["value"].GetDouble(), 1e-7);
  EXPECT_DOUBLE_EQ(p[1]["value"].GetDouble(), 1.5e21);
  EXPECT_STREQ(d["topics"][0]["topic_name"].GetString(), "x#ephemeral");
}

}  // namespace
}  // namespace nsq::nsqd
