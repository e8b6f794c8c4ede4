// Delivery semantics: RDY window, fan-out, timeouts, deferral, ephemeral
// names, memory-queue limits (tcp-protocol.md §6.4, §6.12, §7, §8, §12).

#include <rapidjson/document.h>

#include <map>
#include <set>

#include "integration/harness.h"
#include "testutil/files.h"

namespace nsq::integration {
namespace {

using Clock = std::chrono::steady_clock;
using DeliveryTest = NsqdTest;

std::vector<std::string> numbered(const std::string& prefix, int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(prefix + std::to_string(i));
  return v;
}

// §6.4: RDY is a window: RDY 1 → the next message only after FIN, no new RDY needed.
TEST_F(DeliveryTest, RdyIsAWindowNotACredit) {
  start();
  auto c = consumer("t", "c", 0);
  auto p = client();
  p.mpub("t", {"a", "b", "c"});
  ASSERT_TRUE(got_response(p, "OK"));
  c.rdy(1);
  std::multiset<std::string> got;
  for (int i = 0; i < 3; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    got.insert(m->body);
    EXPECT_TRUE(got_nothing(c, 300ms)) << "more than RDY=1 in flight";
    c.fin(m->id);
  }
  EXPECT_EQ(got, (std::multiset<std::string>{"a", "b", "c"}));
  // RDY 2: two in flight, never three.
  p.mpub("t", {"d", "e", "f"});
  ASSERT_TRUE(got_response(p, "OK"));
  c.rdy(2);
  auto m1 = read_message(c);
  auto m2 = read_message(c);
  ASSERT_TRUE(m1 && m2);
  EXPECT_TRUE(got_nothing(c, 300ms)) << "more than RDY=2 in flight";
  // REQ also frees a slot.
  c.req(m1->id, 0);
  auto m3 = read_message(c);
  ASSERT_TRUE(m3);
  // RDY 0 stops delivery even with free slots.
  c.rdy(0);
  c.fin(m2->id);
  c.fin(m3->id);
  EXPECT_TRUE(got_nothing(c, 300ms)) << "delivered with RDY 0";
}

// §6.4, §12: two clients of one channel share the messages (each exactly once).
TEST_F(DeliveryTest, ClientsOfOneChannelShare) {
  start();
  auto a = consumer("t", "c", 100);
  auto b = consumer("t", "c", 100);
  auto p = client();
  p.mpub("t", numbered("m", 200));
  ASSERT_TRUE(got_response(p, "OK"));
  // Nobody FINs: each can hold at most 100, so each must get exactly 100.
  std::set<std::string> seen;
  for (auto* c : {&a, &b}) {
    for (int i = 0; i < 100; ++i) {
      auto m = read_message(*c);
      ASSERT_TRUE(m) << i;
      EXPECT_TRUE(seen.insert(m->body).second) << "duplicate " << m->body;
    }
    EXPECT_TRUE(got_nothing(*c, 200ms));
  }
  EXPECT_EQ(seen.size(), 200u);
}

// §12: every channel gets every message, with the same id and timestamp.
TEST_F(DeliveryTest, EveryChannelGetsEveryMessage) {
  start();
  auto a = consumer("t", "one", 100);
  auto b = consumer("t", "two", 100);
  auto p = client();
  p.mpub("t", numbered("m", 50));
  ASSERT_TRUE(got_response(p, "OK"));
  std::map<std::string, std::pair<std::string, int64_t>> first;  // body → id, ts
  for (int i = 0; i < 50; ++i) {
    auto m = read_message(a);
    ASSERT_TRUE(m);
    first[m->body] = {m->id, m->timestamp_ns};
    a.fin(m->id);
  }
  EXPECT_EQ(first.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    auto m = read_message(b);
    ASSERT_TRUE(m);
    ASSERT_TRUE(first.count(m->body)) << m->body;
    EXPECT_EQ(first[m->body].first, m->id) << "ids are shared by the channel copies";
    EXPECT_EQ(first[m->body].second, m->timestamp_ns);
    b.fin(m->id);
  }
  EXPECT_TRUE(got_nothing(b, 200ms));
}

// §12: a topic keeps messages until its first channel appears.
TEST_F(DeliveryTest, TopicBuffersUntilFirstChannel) {
  start();
  auto p = client();
  p.mpub("t", numbered("early", 20));
  ASSERT_TRUE(got_response(p, "OK"));
  auto c = consumer("t", "c", 100);
  std::set<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    seen.insert(m->body);
  }
  EXPECT_EQ(seen.size(), 20u);
}

// FINs sent together are finished together (one lock of the channel), and
// still answered as sent one by one: a failed FIN's error in its place,
// before a later command's fatal error, and every good FIN finished, on
// either side of the bad one.
TEST_F(DeliveryTest, FinsSentTogetherAreEachFinishedAndAnsweredInOrder) {
  start();
  auto c = consumer("t", "c", 10, R"({"msg_timeout":1000})");
  for (int i = 0; i < 4; ++i) publish("t", "m" + std::to_string(i));
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    ids.push_back(m->id);
  }
  const std::string bogus = id16('7');
  ASSERT_TRUE(c.send_raw("FIN " + ids[0] + "\nFIN " + ids[1] + "\nFIN " + bogus + "\nFIN " +
                         ids[2] + "\nFIN " + ids[1] + "\nFIN " + ids[3] + "\nNOP\n"));
  EXPECT_TRUE(got_error(c, "E_FIN_FAILED FIN " + bogus + " failed ID not in flight"));
  EXPECT_TRUE(got_error(c, "E_FIN_FAILED FIN " + ids[1] + " failed ID not in flight"));
  EXPECT_TRUE(barrier(c));
  if (need_http()) {
    auto r = testutil::http_request(http_port(), "GET", "/stats?format=json&topic=t&channel=c");
    ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no reply");
    EXPECT_NE(r->body.find("\"in_flight_count\":0"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("\"finish_count\":4"), std::string::npos) << r->body;
  }

  // A FIN put off, then a command that ends the connection: the FIN is
  // finished first, and its error comes before the fatal one.
  for (int i = 0; i < 2; ++i) publish("t", "late" + std::to_string(i));
  auto late = read_message(c);
  auto other = read_message(c);
  ASSERT_TRUE(late && other);
  ASSERT_TRUE(c.send_raw("FIN " + late->id + "\nFIN " + bogus + "\nBOGUS\n"));
  EXPECT_TRUE(got_error(c, "E_FIN_FAILED FIN " + bogus + " failed ID not in flight"));
  EXPECT_TRUE(got_fatal(c, "E_INVALID invalid command BOGUS"));
  // The other late message comes back to the next consumer once it timed
  // out (1 s); the FIN'd one does not.
  auto d = consumer("t", "c", 10);
  auto back = read_message(d, 5000ms);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->id, other->id);
  EXPECT_TRUE(got_nothing(d, 1500ms)) << "a FIN before the fatal error was lost";
}

// §8: an unFIN'd message times out (IDENTIFY msg_timeout) and is redelivered
// with attempts 2; a late FIN by the first owner fails.
TEST_F(DeliveryTest, MsgTimeoutRedelivers) {
  start();
  auto a = consumer("t", "c", 1, R"({"msg_timeout":1000})");
  publish("t", "slow");
  auto m = read_message(a);
  ASSERT_TRUE(m);
  auto t0 = Clock::now();
  a.rdy(0);
  auto b = consumer("t", "c", 1);
  auto m2 = read_message(b, 5000ms);
  ASSERT_TRUE(m2);
  auto waited = Clock::now() - t0;
  EXPECT_GE(waited, 800ms) << "redelivered before msg_timeout";
  EXPECT_LE(waited, 3000ms);
  EXPECT_EQ(m2->id, m->id);
  EXPECT_EQ(m2->body, "slow");
  EXPECT_EQ(m2->attempts, 2);
  a.fin(m->id);
  EXPECT_TRUE(got_error(a, "E_FIN_FAILED FIN " + m->id + " failed client does not own message"));
  b.fin(m2->id);
  EXPECT_TRUE(barrier(b));
  a.fin(m->id);
  EXPECT_TRUE(got_error(a, "E_FIN_FAILED FIN " + m->id + " failed ID not in flight"));
}

// §8: the same client gets the timed-out message again (its in-flight slot is freed).
TEST_F(DeliveryTest, MsgTimeoutRedeliversToSameClient) {
  start({"--msg-timeout=1s"});
  auto a = consumer("t", "c", 1);
  publish("t", "x");
  auto m = read_message(a);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->attempts, 1);
  auto m2 = read_message(a, 5000ms);
  ASSERT_TRUE(m2);
  EXPECT_EQ(m2->id, m->id);
  EXPECT_EQ(m2->attempts, 2);
  auto m3 = read_message(a, 5000ms);
  ASSERT_TRUE(m3);
  EXPECT_EQ(m3->attempts, 3);
  a.fin(m3->id);
  EXPECT_TRUE(barrier(a));
}

// §8, §13: a disconnecting client's in-flight messages come back after the timeout.
TEST_F(DeliveryTest, DisconnectedClientsMessagesTimeOut) {
  start({"--msg-timeout=1s"});
  {
    auto a = consumer("t", "c", 5);
    auto p = client();
    p.mpub("t", {"x", "y"});
    ASSERT_TRUE(got_response(p, "OK"));
    ASSERT_TRUE(read_message(a));
    ASSERT_TRUE(read_message(a));
  }
  auto b = consumer("t", "c", 5);
  std::set<std::string> bodies;
  for (int i = 0; i < 2; ++i) {
    auto m = read_message(b, 5000ms);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->attempts, 2);
    bodies.insert(m->body);
  }
  EXPECT_EQ(bodies, (std::set<std::string>{"x", "y"}));
}

// §6.12: DPUB delay honoured (bounded check), then delivered with attempts 1.
TEST_F(DeliveryTest, DpubDelayHonoured) {
  start();
  auto c = consumer("t", "c", 5);
  auto p = client();
  auto t0 = Clock::now();
  p.dpub("t", 1500, "deferred");
  ASSERT_TRUE(got_response(p, "OK"));
  p.pub("t", "immediate");
  ASSERT_TRUE(got_response(p, "OK"));
  auto first = read_message(c);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, "immediate");
  EXPECT_TRUE(got_nothing(c, 1000ms)) << "deferred message came early";
  auto m = read_message(c, 4000ms);
  ASSERT_TRUE(m);
  EXPECT_GE(Clock::now() - t0, 1400ms);
  EXPECT_EQ(m->body, "deferred");
  EXPECT_EQ(m->attempts, 1);
}

// §6.3: --max-channel-consumers.
TEST_F(DeliveryTest, MaxChannelConsumers) {
  start({"--max-channel-consumers=1"});
  auto a = consumer("t", "c", 0);
  auto b = client();
  b.sub("t", "c");
  EXPECT_TRUE(got_fatal(b, "E_SUB_FAILED SUB failed consumers for t:c exceeds limit of 1"));
  // A slot frees when the consumer leaves (bounded retry: the server notices the close
  // asynchronously).
  a.close();
  bool ok = false;
  for (auto deadline = Clock::now() + 5s; !ok && Clock::now() < deadline;) {
    auto d = client();
    d.sub("t", "c");
    auto r = d.read(kReply);
    ok = static_cast<bool>(is_response(r, "OK"));
    if (!ok) {
      ASSERT_TRUE(is_error(r, "E_SUB_FAILED SUB failed consumers for t:c exceeds limit of 1"));
    }
  }
  EXPECT_TRUE(ok) << "channel slot not released after the consumer disconnected";
}

// §7, §8 (nsqd.dat): ephemeral topic/channel never written to nsqd.dat.
TEST_F(DeliveryTest, EphemeralNotInMetadata) {
  start();
  auto a = consumer("keep", "durable", 0);
  auto b = consumer("keep", "gone#ephemeral", 0);
  auto e = consumer("eph#ephemeral", "c", 0);
  publish("eph#ephemeral", "x");
  publish("keep", "y");
  stop_clean();
  auto dat = testutil::read_file(data_dir_.path() / "nsqd.dat");
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(dat.c_str()).HasParseError()) << dat;
  ASSERT_TRUE(doc.IsObject());
  ASSERT_TRUE(doc["topics"].IsArray()) << dat;
  ASSERT_EQ(doc["topics"].Size(), 1u) << dat;
  EXPECT_NE(
      dat.find(R"({"name":"keep","paused":false,"channels":[{"name":"durable","paused":false}]})"),
      std::string::npos)
      << dat;
  EXPECT_EQ(dat.find("ephemeral"), std::string::npos) << dat;
  EXPECT_EQ(std::string(doc["version"].GetString()), "1.3.0");
}

// §7: an ephemeral channel is deleted with its last client: a new consumer
// of the same name does not see the old messages.
TEST_F(DeliveryTest, EphemeralChannelGoneAfterLastClient) {
  start();
  {
    auto a = consumer("t", "c#ephemeral", 0);
    auto p = client();
    p.mpub("t", {"old1", "old2"});
    ASSERT_TRUE(got_response(p, "OK"));
  }
  if (need_http()) {
    // Wait (bounded, by polling /stats) until the server dropped the channel.
    bool gone = false;
    for (auto deadline = Clock::now() + 5s; !gone && Clock::now() < deadline;) {
      auto r = testutil::http_request(http_port(), "GET", "/stats?format=json&topic=t");
      ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no reply");
      gone = r->body.find("c#ephemeral") == std::string::npos;
      if (!gone) std::this_thread::sleep_for(20ms);
    }
    ASSERT_TRUE(gone) << "ephemeral channel still listed 5 s after its last client left";
  } else {
    // No HTTP: a round trip on another connection gives the server time to see the close.
    auto p = client();
    ASSERT_TRUE(barrier(p));
  }
  auto b = client();
  b.sub("t", "c#ephemeral");
  auto r = b.read(kReply);
  ASSERT_TRUE(is_response(r, "OK"));
  b.rdy(10);
  EXPECT_TRUE(got_nothing(b, 500ms)) << "messages of the deleted ephemeral channel were delivered";
  publish("t", "new");
  auto m = read_message(b);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "new");
}

// §7: an ephemeral topic drops what exceeds --mem-queue-size.
TEST_F(DeliveryTest, EphemeralOverflowIsDropped) {
  start({"--mem-queue-size=10"});
  auto c = consumer("e#ephemeral", "c#ephemeral", 0);
  auto p = client();
  for (int i = 0; i < 30; ++i) {
    p.pub("e#ephemeral", "m" + std::to_string(i));
    ASSERT_TRUE(got_response(p, "OK"));
  }
  c.rdy(100);
  int n = 0;
  while (c.read_skip_heartbeats(500ms).status == RawClient::ReadStatus::frame) ++n;
  EXPECT_GE(n, 10);
  EXPECT_LE(n, 20) << "ephemeral queues must not exceed memory (topic 10 + channel 10)";
  // Nothing was written to disk for them.
  for (auto& entry : std::filesystem::directory_iterator(data_dir_.path()))
    EXPECT_EQ(entry.path().filename().string().find("ephemeral"), std::string::npos)
        << entry.path();
}

// §12: --mem-queue-size=0 goes through the disk queues and keeps FIFO order.
TEST_F(DeliveryTest, MemQueueSizeZeroDeliversEverythingInOrder) {
  start({"--mem-queue-size=0"});
  auto c = consumer("t", "c", 0);
  auto p = client();
  for (int i = 0; i < 100; ++i) {
    p.pub("t", "s" + std::to_string(i));
    ASSERT_TRUE(got_response(p, "OK"));
  }
  p.mpub("t", numbered("b", 100));
  ASSERT_TRUE(got_response(p, "OK"));
  c.rdy(1);
  for (int i = 0; i < 200; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m) << i;
    EXPECT_EQ(m->body, i < 100 ? "s" + std::to_string(i) : "b" + std::to_string(i - 100));
    c.fin(m->id);
  }
  EXPECT_TRUE(got_nothing(c, 300ms));
}

// --max-msg-size: exactly the max is accepted and delivered intact, +1 rejected.
TEST_F(DeliveryTest, MaxMsgSizeBoundary) {
  start();
  std::string big(1048576, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 + (i >> 11));
  auto c = consumer("t", "c", 1);
  auto p = client();
  p.pub("t", big);
  ASSERT_TRUE(got_response(p, "OK"));
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->body == big) << "1 MiB body corrupted (size " << m->body.size() << ")";
  c.fin(m->id);
  p.mpub("t", {big, "small"});
  ASSERT_TRUE(got_response(p, "OK"));
  p.pub("t", big + "x");
  EXPECT_TRUE(got_fatal(p, "E_BAD_MESSAGE PUB message too big 1048577 > 1048576"));
  auto m2 = read_message(c);
  ASSERT_TRUE(m2);
  c.fin(m2->id);
  auto m3 = read_message(c);
  ASSERT_TRUE(m3);
  std::set<std::size_t> sizes{m2->body.size(), m3->body.size()};
  EXPECT_EQ(sizes, (std::set<std::size_t>{5, 1048576}));
}

// §10.1: sample_rate discards about (100 - rate)% of messages.
TEST_F(DeliveryTest, SampleRateDropsMessages) {
  start();
  auto c = consumer("t", "c", 2500, R"({"sample_rate":10})");
  auto p = client();
  p.mpub("t", numbered("s", 2000));
  ASSERT_TRUE(got_response(p, "OK"));
  int n = 0;
  while (c.read_skip_heartbeats(700ms).status == RawClient::ReadStatus::frame) ++n;
  // Expected ~11% of 2000 = 220.
  EXPECT_GT(n, 120);
  EXPECT_LT(n, 350);
}

// §6.6: a REQ delay above --max-req-timeout is clamped, not refused.
TEST_F(DeliveryTest, ReqDelayClampedToMaxReqTimeout) {
  start({"--max-req-timeout=1s"});
  auto c = consumer("t", "c", 1);
  publish("t", "x");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  auto t0 = Clock::now();
  c.req(m->id, 3600000);
  auto m2 = read_message(c, 4000ms);
  ASSERT_TRUE(m2) << "REQ delay not clamped to --max-req-timeout";
  EXPECT_GE(Clock::now() - t0, 800ms);
  EXPECT_EQ(m2->attempts, 2);
}

// §6.7: TOUCH cannot keep a message beyond delivery + --max-msg-timeout.
TEST_F(DeliveryTest, TouchCappedByMaxMsgTimeout) {
  start({"--max-msg-timeout=2s"});
  auto c = consumer("t", "c", 1, R"({"msg_timeout":1000})");
  publish("t", "x");
  auto m = read_message(c);
  ASSERT_TRUE(m);
  auto t0 = Clock::now();
  std::optional<TestMessage> again;
  while (Clock::now() - t0 < 5s) {
    auto r = c.read_skip_heartbeats(300ms);
    if (r.status == RawClient::ReadStatus::frame) {
      again = testutil::to_test_message(r.frame);
      ASSERT_TRUE(again) << r.describe();
      break;
    }
    ASSERT_EQ(r.status, RawClient::ReadStatus::timeout) << r.describe();
    c.touch(m->id);
  }
  ASSERT_TRUE(again) << "message never timed out although TOUCHed past --max-msg-timeout";
  auto waited = Clock::now() - t0;
  EXPECT_GE(waited, 1700ms);
  EXPECT_LE(waited, 3500ms);
  EXPECT_EQ(again->id, m->id);
  EXPECT_EQ(again->attempts, 2);
}

// §6.12: a DPUB that finds the topic memory queue full goes to disk and loses its delay.
TEST_F(DeliveryTest, DpubIntoFullTopicLosesDelay) {
  start({"--mem-queue-size=2"});
  auto p = client();
  p.pub("t", "a");
  ASSERT_TRUE(got_response(p, "OK"));
  p.pub("t", "b");
  ASSERT_TRUE(got_response(p, "OK"));
  p.dpub("t", 60000, "deferred");  // no channel yet: the topic memory queue (2) is full
  ASSERT_TRUE(got_response(p, "OK"));
  auto c = consumer("t", "c", 10);
  std::set<std::string> got;
  for (int i = 0; i < 3; ++i) {
    auto m = read_message(c, 3000ms);
    ASSERT_TRUE(m) << "the DPUB that went to disk kept its delay";
    got.insert(m->body);
  }
  EXPECT_EQ(got, (std::set<std::string>{"a", "b", "deferred"}));
}
}  // namespace
}  // namespace nsq::integration
