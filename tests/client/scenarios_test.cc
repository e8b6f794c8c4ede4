// The delivery scenarios of the nsqjs conformance suite (tests/conformance),
// driven by our own client: timing, ephemeral channels, the handshake and
// heartbeats, /stats, and a cluster behind two nsqlookupd.
#include <atomic>
#include <future>
#include <set>

#include "client_harness.h"
#include "nsq/client/consumer.h"
#include "nsq/client/producer.h"

namespace nsq::client::test {
namespace {

using Clock = std::chrono::steady_clock;

class ScenarioTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(nsqd_.start(), ""); }
  RunningNsqd nsqd_;
};

TEST_F(ScenarioTest, DeferredPublishIsOvertakenByALaterPublish) {
  Seen seen;
  std::map<std::string, Clock::time_point> arrived;
  std::mutex mu;
  Consumer consumer("dpub", "ch", fast_config());
  consumer.set_handler([&](Message& m) -> HandlerResult {
    {
      std::lock_guard lock(mu);
      arrived[m.body()] = Clock::now();
    }
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  Producer producer(nsqd_.tcp_address(), Config());
  auto sent = Clock::now();
  ASSERT_TRUE(producer.deferred_publish("dpub", 700ms, "deferred"));
  ASSERT_TRUE(producer.publish("dpub", "immediate"));
  ASSERT_TRUE(seen.wait_count(2));
  EXPECT_EQ(seen.bodies(), (std::vector<std::string>{"immediate", "deferred"}));
  std::lock_guard lock(mu);
  EXPECT_GE(arrived["deferred"] - sent, 700ms);
}

TEST_F(ScenarioTest, ExplicitRequeueZeroAndAgainKeepCountingAttempts) {
  Seen seen;
  Consumer consumer("req0", "ch", fast_config());
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    if (m.attempts() < 3) m.requeue_without_backoff(0ms);
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  Producer producer(nsqd_.tcp_address(), Config());
  ASSERT_TRUE(producer.publish("req0", "again"));
  ASSERT_TRUE(seen.wait_count(3));
  EXPECT_EQ(seen.attempts("again"), (std::vector<int>{1, 2, 3}));
}

TEST_F(ScenarioTest, EphemeralChannelGoesWithItsLastConsumer) {
  // A durable channel too, so the topic does not hold messages for want of
  // channels while the ephemeral one is gone.
  auto topic = testutil::http_once(nsqd_.process.http_port(), "POST", "/topic/create?topic=eph");
  ASSERT_TRUE(topic && topic->status == 200);
  auto created = testutil::http_once(nsqd_.process.http_port(), "POST",
                                     "/channel/create?topic=eph&channel=keep");
  ASSERT_TRUE(created && created->status == 200);
  Producer producer(nsqd_.tcp_address(), Config());
  {
    Seen seen;
    Consumer consumer("eph", "tail#ephemeral", fast_config());
    consumer.set_handler([&](Message& m) -> HandlerResult {
      seen.add(m.body(), m.attempts());
      return {};
    });
    ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
    ASSERT_TRUE(nsqd_.eventually(
        [&] { return nsqd_.channel_stat("eph", "tail#ephemeral", "client_count") == 1; }));
    ASSERT_TRUE(producer.publish("eph", "first"));
    ASSERT_TRUE(seen.wait_count(1));
  }
  EXPECT_TRUE(nsqd_.eventually([&] {
    return nsqd_.channel_stat("eph", "tail#ephemeral", "client_count") == -1;
  })) << "the channel is gone";
  ASSERT_TRUE(producer.publish("eph", "unseen"));  // only "keep" gets it
  Seen fresh;
  Consumer again("eph", "tail#ephemeral", fast_config());
  again.set_handler([&](Message& m) -> HandlerResult {
    fresh.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(again.connect_to_nsqd(nsqd_.tcp_address()));
  ASSERT_TRUE(nsqd_.eventually(
      [&] { return nsqd_.channel_stat("eph", "tail#ephemeral", "client_count") == 1; }));
  ASSERT_TRUE(producer.publish("eph", "second"));
  ASSERT_TRUE(fresh.wait_count(1));
  EXPECT_EQ(fresh.bodies(), (std::vector<std::string>{"second"}));
}

TEST_F(ScenarioTest, MaxInFlightAboveMaxRdyCountIsClampedNotRefused) {
  Config c = fast_config();
  c.max_in_flight = 5000;
  std::atomic<int> got{0};
  std::vector<Message> held;
  std::mutex mu;
  Consumer consumer("clamp", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    std::lock_guard lock(mu);
    if (held.size() < 2500) {  // kept in flight until the checks are done
      m.disable_auto_response();
      held.push_back(m);
    }
    ++got;
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  ASSERT_TRUE(nsqd_.eventually(
      [&] { return nsqd_.client_rdy("clamp", "ch") == std::vector<int64_t>{2500}; }));
  Producer producer(nsqd_.tcp_address(), Config());
  std::vector<std::string> bodies;
  for (int i = 0; i < 3000; ++i) bodies.push_back("r" + std::to_string(i));
  ASSERT_TRUE(producer.multi_publish("clamp", bodies));
  ASSERT_TRUE(nsqd_.eventually([&] { return got.load() >= 2500; }));
  EXPECT_EQ(nsqd_.channel_stat("clamp", "ch", "in_flight_count"), 2500);
  EXPECT_EQ(consumer.stats().connections, 1) << "RDY 2500 accepted, connection kept";
  std::lock_guard lock(mu);
  for (auto& m : held) m.finish();
}

TEST_F(ScenarioTest, IdentityAndHeartbeatsAsConfigured) {
  Config c = fast_config();
  c.heartbeat_interval = 1s;
  c.client_id = "scenario-client";
  c.user_agent = "scenario/1.0 go-nsq/1.1.0";
  Seen seen;
  Consumer consumer("hb", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  std::string client_id, user_agent;
  ASSERT_TRUE(nsqd_.eventually([&] {
    bool found = false;
    nsqd_.for_channel("hb", "ch", [&](const rapidjson::Value& ch) {
      for (const auto& cl : ch["clients"].GetArray()) {
        client_id = cl["client_id"].GetString();
        user_agent = cl["user_agent"].GetString();
        found = true;
      }
    });
    return found;
  }));
  EXPECT_EQ(client_id, "scenario-client");
  EXPECT_EQ(user_agent, "scenario/1.0 go-nsq/1.1.0");
  // nsqd drops a client that misses two heartbeats: outlive three intervals
  // (the duration is what is under test), then still receive on the same
  // connection.
  std::this_thread::sleep_for(3500ms);
  Producer producer(nsqd_.tcp_address(), c);
  ASSERT_TRUE(producer.publish("hb", "still here"));
  ASSERT_TRUE(seen.wait_count(1));
  EXPECT_EQ(consumer.stats().connections, 1);
  EXPECT_EQ(nsqd_.process.log().find("heartbeat"), std::string::npos) << nsqd_.process.log();
  EXPECT_TRUE(producer.publish("hb", "producer kept its connection too"));
}

// 2 nsqlookupd, 3 nsqd registered with both; consumers know only the
// lookupds, one of which is killed and restarted midway.
TEST(ScenarioCluster, LookupdOnlyConsumersGetEverythingOnceAcrossALookupdRestart) {
  testutil::NsqlookupdProcess l1, l2;
  ASSERT_EQ(l1.start({}), "");
  ASSERT_EQ(l2.start({}), "");
  std::vector<std::string> nsqd_args = {
      "--lookupd-tcp-address=127.0.0.1:" + std::to_string(l1.tcp_port()),
      "--lookupd-tcp-address=127.0.0.1:" + std::to_string(l2.tcp_port()),
      "--broadcast-address=127.0.0.1"};
  std::array<RunningNsqd, 3> nsqds;
  for (auto& n : nsqds) ASSERT_EQ(n.start(nsqd_args), "");
  std::vector<std::string> lookupds = {"127.0.0.1:" + std::to_string(l1.http_port()),
                                       "127.0.0.1:" + std::to_string(l2.http_port())};
  constexpr int kPerNsqd = 10000;
  Seen seen;
  std::vector<std::unique_ptr<Consumer>> consumers;
  for (int i = 0; i < 2; ++i) {
    Config c = fast_config();
    c.max_in_flight = 30;
    auto consumer = std::make_unique<Consumer>("cluster", "ch", c);
    consumer->set_handler([&](Message& m) -> HandlerResult {
      seen.add(m.body(), m.attempts());
      return {};
    });
    ASSERT_TRUE(consumer->connect_to_lookupds(lookupds));
    consumers.push_back(std::move(consumer));
  }
  auto publish_half = [&](int half) {
    for (std::size_t n = 0; n < nsqds.size(); ++n) {
      Producer p(nsqds[n].tcp_address(), Config());
      std::vector<std::string> batch;
      for (int i = 0; i < kPerNsqd / 2; ++i)
        batch.push_back("n" + std::to_string(n) + "-" + std::to_string(half) + "-" +
                        std::to_string(i));
      for (std::size_t i = 0; i < batch.size(); i += 1000)
        ASSERT_TRUE(p.multi_publish(
            "cluster",
            std::vector<std::string>(batch.begin() + static_cast<std::ptrdiff_t>(i),
                                     batch.begin() + static_cast<std::ptrdiff_t>(i + 1000))));
    }
  };
  publish_half(0);
  ASSERT_TRUE(seen.wait_count(3 * kPerNsqd / 2, 60s)) << seen.count();
  ASSERT_TRUE(l1.kill_now());
  testutil::NsqlookupdProcess l1_again;
  testutil::NsqlookupdProcess::Options same;
  same.tcp_address = "127.0.0.1:" + std::to_string(l1.tcp_port());
  same.http_address = lookupds[0];
  ASSERT_EQ(l1_again.start(same), "");
  publish_half(1);
  ASSERT_TRUE(seen.wait_count(3 * kPerNsqd, 60s)) << seen.count();
  auto bodies = seen.bodies();
  EXPECT_EQ(bodies.size(), static_cast<std::size_t>(3 * kPerNsqd)) << "no duplicates";
  EXPECT_EQ(std::set<std::string>(bodies.begin(), bodies.end()).size(),
            static_cast<std::size_t>(3 * kPerNsqd));
  for (auto& c : consumers) EXPECT_EQ(c->stats().connections, 3);
}

}  // namespace
}  // namespace nsq::client::test
