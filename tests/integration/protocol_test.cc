// Success path of every TCP command (tcp-protocol.md §4, §6).

#include <algorithm>
#include <set>

#include "integration/harness.h"

namespace nsq::integration {
namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool is_lower_hex16(const std::string& id) {
  return id.size() == 16 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

class ProtocolTest : public NsqdTest {
 protected:
  std::vector<uint64_t> ids_in_order_;
};

// §6.1: without feature_negotiation the reply is a plain OK.
TEST_F(ProtocolTest, IdentifyWithoutFeatureNegotiationIsOk) {
  start();
  auto c = client();
  c.identify(
      R"({"client_id":"test","hostname":"h","user_agent":"integ/1.0","short_id":"x","long_id":"y"})");
  EXPECT_TRUE(got_response(c, "OK"));
  c.sub("t", "c");
  EXPECT_TRUE(got_response(c, "OK"));
}

// §6.1: feature negotiation reply, exact key order and default values.
TEST_F(ProtocolTest, IdentifyFeatureNegotiationDefaults) {
  start();
  auto c = client();
  c.identify(R"({"feature_negotiation":true})");
  EXPECT_TRUE(got_response(
      c, R"({"max_rdy_count":2500,"version":"1.3.0","max_msg_timeout":900000,)"
         R"("msg_timeout":60000,"tls_v1":false,"deflate":false,"deflate_level":6,)"
         R"("max_deflate_level":6,"snappy":false,"sample_rate":0,"auth_required":false,)"
         R"("output_buffer_size":16384,"output_buffer_timeout":250})"));
  // Still usable afterwards (no upgrade was negotiated).
  c.sub("t", "c");
  EXPECT_TRUE(got_response(c, "OK"));
}

// §6.1: negotiated values reflect the request and the server flags.
TEST_F(ProtocolTest, IdentifyFeatureNegotiationNegotiatedValues) {
  start({"--max-rdy-count=100", "--max-msg-timeout=20m", "--max-deflate-level=3",
         "--msg-timeout=30s"});
  auto c = client();
  c.identify(
      R"({"feature_negotiation":true,"msg_timeout":5000,"sample_rate":50,)"
      R"("output_buffer_size":-1,"output_buffer_timeout":-1,"deflate_level":9,"HeartBeat_Interval":2000})");
  EXPECT_TRUE(got_response(
      c, R"({"max_rdy_count":100,"version":"1.3.0","max_msg_timeout":1200000,)"
         R"("msg_timeout":5000,"tls_v1":false,"deflate":false,"deflate_level":3,)"
         R"("max_deflate_level":3,"snappy":false,"sample_rate":50,"auth_required":false,)"
         R"("output_buffer_size":1,"output_buffer_timeout":0})"));

  auto d = client();
  d.identify(
      R"({"feature_negotiation":true,"output_buffer_size":1024,"output_buffer_timeout":100,"msg_timeout":null})");
  EXPECT_TRUE(got_response(
      d, R"({"max_rdy_count":100,"version":"1.3.0","max_msg_timeout":1200000,)"
         R"("msg_timeout":30000,"tls_v1":false,"deflate":false,"deflate_level":3,)"
         R"("max_deflate_level":3,"snappy":false,"sample_rate":0,"auth_required":false,)"
         R"("output_buffer_size":1024,"output_buffer_timeout":100})"));
}

// §6.3, §6.4, §6.10, §4: SUB, PUB, RDY then a well-formed message; FIN.
TEST_F(ProtocolTest, PubSubRdyDeliversDecodableMessage) {
  start();
  auto c = consumer("t", "c", 0);
  auto p = client();
  int64_t before = now_ns();
  p.pub("t", "hello world");
  ASSERT_TRUE(got_response(p, "OK"));
  int64_t after = now_ns();
  EXPECT_TRUE(got_nothing(c)) << "delivered before RDY";
  c.rdy(1);
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_GE(m->timestamp_ns, before - 1'000'000'000);
  EXPECT_LE(m->timestamp_ns, after + 1'000'000'000);
  EXPECT_EQ(m->attempts, 1);
  EXPECT_TRUE(is_lower_hex16(m->id)) << m->id;
  EXPECT_EQ(m->body, "hello world");
  c.fin(m->id);
  EXPECT_TRUE(barrier(c)) << "FIN of an owned in-flight message must not fail";
  EXPECT_TRUE(got_nothing(c)) << "FIN'd message redelivered";
}

// §6.4: RDY without a count means 1.
TEST_F(ProtocolTest, RdyWithoutCountMeansOne) {
  start();
  auto c = consumer("t", "c", 0);
  publish("t", "a");
  publish("t", "b");
  c.send_raw("RDY\n");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_TRUE(got_nothing(c)) << "RDY with no count allowed more than one in flight";
  c.fin(m->id);
  auto m2 = read_message(c);
  ASSERT_TRUE(m2);
  EXPECT_NE(m->body, m2->body);
}

// §6.11: MPUB → OK, every message delivered once, distinct ids.
TEST_F(ProtocolTest, MpubDeliversAll) {
  start();
  auto c = consumer("t", "c", 10);
  auto p = client();
  p.mpub("t", {"m1", "m2", "m3"});
  ASSERT_TRUE(got_response(p, "OK"));
  std::multiset<std::string> bodies;
  std::set<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->attempts, 1);
    bodies.insert(m->body);
    ids.insert(m->id);
    c.fin(m->id);
  }
  EXPECT_EQ(bodies, (std::multiset<std::string>{"m1", "m2", "m3"}));
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_TRUE(got_nothing(c));
}

// §6.12: DPUB → OK; defer 0 behaves like PUB.
TEST_F(ProtocolTest, DpubZeroIsImmediate) {
  start();
  auto c = consumer("t", "c", 1);
  auto p = client();
  p.dpub("t", 0, "now");
  ASSERT_TRUE(got_response(p, "OK"));
  auto m = read_message(c, 2000ms);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "now");
  EXPECT_EQ(m->attempts, 1);
}

// §6.6: REQ 0 → redelivered at once, same id/timestamp, attempts 2.
TEST_F(ProtocolTest, ReqZeroRedeliversWithAttemptsTwo) {
  start();
  auto c = consumer("t", "c", 1);
  publish("t", "again");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  c.req(m->id, 0);
  auto m2 = read_message(c);
  ASSERT_TRUE(m2);
  EXPECT_EQ(m2->id, m->id);
  EXPECT_EQ(m2->body, "again");
  EXPECT_EQ(m2->timestamp_ns, m->timestamp_ns);
  EXPECT_EQ(m2->attempts, 2);
  c.fin(m2->id);
  EXPECT_TRUE(barrier(c));
}

// §6.6: REQ with a delay → not before the delay, then delivered.
TEST_F(ProtocolTest, ReqWithDelayHonoursDelay) {
  start();
  auto c = consumer("t", "c", 1);
  publish("t", "later");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  auto t0 = std::chrono::steady_clock::now();
  c.req(m->id, 1500);
  EXPECT_TRUE(got_nothing(c, 1200ms)) << "requeued message came back before its delay";
  auto m2 = read_message(c, 4000ms);
  ASSERT_TRUE(m2);
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 1400ms);
  EXPECT_EQ(m2->id, m->id);
  EXPECT_EQ(m2->attempts, 2);
}

// §6.7: TOUCH pushes the deadline: a message touched past its msg_timeout
// is still owned and FIN succeeds.
TEST_F(ProtocolTest, TouchExtendsDeadline) {
  start();
  auto c = consumer("t", "c", 1, R"({"msg_timeout":1000})");
  publish("t", "slow");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  for (int i = 0; i < 6; ++i) {
    // 6 x 400 ms = 2.4 s > msg_timeout; each TOUCH restarts the 1 s deadline.
    EXPECT_TRUE(got_nothing(c, 400ms)) << "message redelivered despite TOUCH";
    c.touch(m->id);
  }
  c.fin(m->id);
  EXPECT_TRUE(barrier(c)) << "FIN after TOUCHes failed: TOUCH did not keep the message in flight";
  EXPECT_TRUE(got_nothing(c));
}

// §6.8: CLS → CLOSE_WAIT, then no more messages; RDY ignored; FIN still accepted.
TEST_F(ProtocolTest, ClsStopsDelivery) {
  start();
  auto c = consumer("t", "c", 5);
  publish("t", "one");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  c.cls();
  EXPECT_TRUE(got_response(c, "CLOSE_WAIT"));
  publish("t", "two");
  publish("t", "three");
  EXPECT_TRUE(got_nothing(c)) << "message delivered after CLS";
  c.rdy(5);  // ignored while closing
  c.fin(m->id);
  EXPECT_TRUE(barrier(c)) << "RDY/FIN in closing state must be accepted silently";
  EXPECT_TRUE(got_nothing(c)) << "message delivered after CLS";
  // nsqd does not close the connection because of CLS.
  EXPECT_TRUE(c.nop());
  EXPECT_TRUE(barrier(c));
  // The messages stay for another consumer.
  auto d = consumer("t", "c", 5);
  std::multiset<std::string> bodies;
  for (int i = 0; i < 2; ++i) {
    auto x = read_message(d);
    ASSERT_TRUE(x);
    bodies.insert(x->body);
  }
  EXPECT_EQ(bodies, (std::multiset<std::string>{"two", "three"}));
}

// §6.9: NOP → nothing, in any state; "\r\n" line endings accepted (§2).
TEST_F(ProtocolTest, NopHasNoResponse) {
  start();
  auto c = client();
  c.nop();
  EXPECT_TRUE(got_nothing(c));
  c.send_raw("NOP\r\n");
  EXPECT_TRUE(barrier(c));
  c.sub("t", "c");
  EXPECT_TRUE(got_response(c, "OK"));
  c.nop();
  EXPECT_TRUE(got_nothing(c));
  EXPECT_TRUE(barrier(c));
}

// §6.10/§6.12: PUB/MPUB/DPUB are allowed in every state (here: subscribed).
TEST_F(ProtocolTest, PublishWhileSubscribed) {
  start();
  auto c = consumer("t", "c", 0);
  c.pub("other", "x");
  EXPECT_TRUE(got_response(c, "OK"));
  c.mpub("other", {"a", "b"});
  EXPECT_TRUE(got_response(c, "OK"));
  c.dpub("other", 10, "d");
  EXPECT_TRUE(got_response(c, "OK"));
  c.dpub("other", 3600000, "max");  // equal to --max-req-timeout is allowed
  EXPECT_TRUE(got_response(c, "OK"));
}

// §15: responses come back in command order when pipelined.
TEST_F(ProtocolTest, PipelinedPublishesAnswerInOrder) {
  start();
  auto p = client();
  std::string batch;
  for (int i = 0; i < 50; ++i) {
    std::string body = "p" + std::to_string(i);
    batch += "PUB t\n" + be32(static_cast<uint32_t>(body.size())) + body;
  }
  batch += "PUB bad!topic\n";
  p.send_raw(batch);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(got_response(p, "OK")) << i;
  EXPECT_TRUE(got_fatal(p, R"(E_BAD_TOPIC PUB topic name "bad!topic" is not valid)"));
  auto c = consumer("t", "c", 100);
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    seen.insert(m->body);
  }
  EXPECT_EQ(seen.size(), 50u);
}

// §4: message id layout: ((ts - epoch) << 22) | (node_id << 12) | sequence, as
// 16 lowercase hex chars; ids of one MPUB increase.
TEST_F(ProtocolTest, MessageIdEncodesNodeIdAndTime) {
  start({"--node-id=613"});
  auto c = consumer("t", "c", 10);
  auto p = client();
  int64_t before = now_ns();
  p.mpub("t", {"a", "b", "c", "d"});
  ASSERT_TRUE(got_response(p, "OK"));
  for (int i = 0; i < 4; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    ASSERT_TRUE(is_lower_hex16(m->id)) << m->id;
    uint64_t id = std::stoull(m->id, nullptr, 16);
    EXPECT_EQ((id >> 12) & 0x3ff, 613u) << m->id;
    int64_t ts_ns = static_cast<int64_t>(((id >> 22) + 1288834974288ULL) << 20);
    EXPECT_NEAR(static_cast<double>(ts_ns), static_cast<double>(before), 5e9) << m->id;
    ids_in_order_.push_back(id);
  }
  std::vector<uint64_t> sorted = ids_in_order_;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "duplicate ids";
}
}  // namespace
}  // namespace nsq::integration
