#include "nsq/client/consumer.h"

#include <atomic>
#include <future>
#include <set>

#include "client_harness.h"
#include "nsq/client/producer.h"

namespace nsq::client::test {
namespace {

class ConsumerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(nsqd_.start(), ""); }

  void publish(const std::string& topic, const std::vector<std::string>& bodies) {
    Producer producer(nsqd_.tcp_address(), Config());
    for (std::size_t i = 0; i < bodies.size(); i += 500) {
      std::vector<std::string> batch(
          bodies.begin() + static_cast<std::ptrdiff_t>(i),
          bodies.begin() + static_cast<std::ptrdiff_t>(std::min(bodies.size(), i + 500)));
      ASSERT_TRUE(producer.multi_publish(topic, batch));
    }
  }

  RunningNsqd nsqd_;
};

std::vector<std::string> numbered(int n, const std::string& prefix = "m") {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

TEST_F(ConsumerTest, FanoutThreeSharingAChannelAndASecondChannelEachGetEverythingOnce) {
  constexpr int kCount = 100000;
  auto bodies = numbered(kCount);
  Seen shared, second;
  std::vector<std::unique_ptr<Consumer>> consumers;
  std::vector<std::atomic<int>> per_reader(3);
  for (int r = 0; r < 3; ++r) {
    Config c = fast_config();
    c.max_in_flight = 100;
    auto consumer = std::make_unique<Consumer>("fanout", "ch-a", c);
    consumer->set_handler([&, r](Message& m) -> HandlerResult {
      shared.add(m.body(), m.attempts());
      ++per_reader[static_cast<std::size_t>(r)];
      return {};
    });
    ASSERT_TRUE(consumer->connect_to_nsqd(nsqd_.tcp_address()));
    consumers.push_back(std::move(consumer));
  }
  Config c = fast_config();
  c.max_in_flight = 100;
  Consumer other("fanout", "ch-b", c);
  other.set_handler([&](Message& m) -> HandlerResult {
    second.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(other.connect_to_nsqd(nsqd_.tcp_address()));
  ASSERT_TRUE(
      nsqd_.eventually([&] { return nsqd_.channel_stat("fanout", "ch-a", "client_count") == 3; }));

  publish("fanout", bodies);
  ASSERT_TRUE(shared.wait_count(kCount, 90s)) << shared.count();
  ASSERT_TRUE(second.wait_count(kCount, 90s)) << second.count();
  for (auto* seen : {&shared, &second}) {
    auto got = seen->bodies();
    std::set<std::string> unique(got.begin(), got.end());
    EXPECT_EQ(unique.size(), static_cast<std::size_t>(kCount));
    EXPECT_EQ(got.size(), static_cast<std::size_t>(kCount)) << "no duplicates";
    EXPECT_EQ(unique, std::set<std::string>(bodies.begin(), bodies.end()));
  }
  for (auto& n : per_reader) EXPECT_GT(n.load(), 0) << "every reader of ch-a got messages";
  // Everything was FIN'd: nothing left in flight or queued.
  EXPECT_TRUE(nsqd_.eventually([&] {
    return nsqd_.channel_stat("fanout", "ch-a", "in_flight_count") == 0 &&
           nsqd_.channel_stat("fanout", "ch-a", "depth") == 0 &&
           nsqd_.channel_stat("fanout", "ch-b", "in_flight_count") == 0;
  }));
  for (auto& consumer : consumers)
    EXPECT_EQ(consumer->stats().messages_finished, consumer->stats().messages_received);
}

TEST_F(ConsumerTest, HandlerErrorRequeuesWithDelayAndAttemptsCount) {
  Config c = fast_config();
  c.default_requeue_delay = 300ms;
  c.backoff_multiplier = 10ms;
  Seen seen;
  std::atomic<int> calls{0};
  auto first_failure = std::chrono::steady_clock::now();
  Consumer consumer("requeue", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    if (calls++ == 0) {
      first_failure = std::chrono::steady_clock::now();
      return tl::unexpected(std::string("try again"));
    }
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  publish("requeue", {"once"});
  ASSERT_TRUE(seen.wait_count(2));
  auto again = std::chrono::steady_clock::now();
  EXPECT_EQ(seen.attempts("once"), (std::vector<int>{1, 2}));
  EXPECT_GE(again - first_failure, 300ms) << "REQ carried default_requeue_delay x attempts";
  EXPECT_TRUE(
      nsqd_.eventually([&] { return nsqd_.channel_stat("requeue", "ch", "requeue_count") == 1; }));
  EXPECT_EQ(consumer.stats().messages_requeued, 1u);
}

TEST_F(ConsumerTest, MaxAttemptsGivesUpThroughTheHookAndFinishes) {
  Config c = fast_config();
  c.max_attempts = 2;
  c.default_requeue_delay = 0ms;
  c.backoff_multiplier = 1ms;
  Seen handled;
  std::promise<std::pair<std::string, int>> given_up;
  Consumer consumer("attempts", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    handled.add(m.body(), m.attempts());
    return tl::unexpected(std::string("always fails"));
  });
  consumer.set_failed_message_hook([&](const Message& m) {
    given_up.set_value({m.body(), m.attempts()});
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  publish("attempts", {"doomed"});
  auto f = given_up.get_future();
  ASSERT_EQ(f.wait_for(kEventTimeout), std::future_status::ready);
  auto [body, attempts] = f.get();
  EXPECT_EQ(body, "doomed");
  EXPECT_EQ(attempts, 3);
  EXPECT_EQ(handled.attempts("doomed"), (std::vector<int>{1, 2}));
  EXPECT_TRUE(nsqd_.eventually([&] {
    return nsqd_.channel_stat("attempts", "ch", "in_flight_count") == 0 &&
           nsqd_.channel_stat("attempts", "ch", "depth") == 0;
  }));
}

TEST_F(ConsumerTest, UnansweredMessageTimesOutAndComesBack) {
  Config c = fast_config();
  c.msg_timeout = 1000ms;
  Seen seen;
  std::mutex mu;
  Message first;
  Consumer consumer("timeout", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    if (m.attempts() == 1) {
      m.disable_auto_response();  // and do not answer until the end
      std::lock_guard lock(mu);
      first = m;
    }
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  publish("timeout", {"slow"});
  ASSERT_TRUE(seen.wait_count(2));
  EXPECT_EQ(seen.attempts("slow"), (std::vector<int>{1, 2}));
  EXPECT_TRUE(
      nsqd_.eventually([&] { return nsqd_.channel_stat("timeout", "ch", "timeout_count") == 1; }));
  // A late FIN of the timed-out delivery: nsqd answers E_FIN_FAILED, harmlessly.
  std::lock_guard lock(mu);
  first.finish();
}

TEST_F(ConsumerTest, DeferredAnswerFromAnotherThread) {
  Config c = fast_config();
  c.max_in_flight = 10;
  std::mutex mu;
  std::vector<Message> held;
  std::condition_variable cv;
  Consumer consumer("later", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    m.disable_auto_response();
    std::lock_guard lock(mu);
    held.push_back(m);
    cv.notify_all();
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  publish("later", numbered(10));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, kEventTimeout, [&] { return held.size() == 10; }));
  }
  EXPECT_TRUE(consumer.is_starved()) << "10 in flight with RDY 10";
  EXPECT_EQ(nsqd_.channel_stat("later", "ch", "in_flight_count"), 10);
  std::thread answerer([&] {
    for (auto& m : held) {
      m.touch();
      m.finish();
      m.finish();  // a second answer is ignored
    }
  });
  answerer.join();
  EXPECT_TRUE(
      nsqd_.eventually([&] { return nsqd_.channel_stat("later", "ch", "in_flight_count") == 0; }));
  EXPECT_FALSE(consumer.is_starved());
  EXPECT_EQ(consumer.stats().messages_finished, 10u);
}

TEST_F(ConsumerTest, MaxInFlightIsSplitAcrossConnections) {
  RunningNsqd second;
  ASSERT_EQ(second.start(), "");
  Config c = fast_config();
  c.max_in_flight = 10;
  Consumer consumer("split", "ch", c);
  consumer.set_handler([](Message&) -> HandlerResult { return {}; });
  // Topics must exist for SUB to be meaningful in /stats.
  ASSERT_TRUE(consumer.connect_to_nsqds({nsqd_.tcp_address(), second.tcp_address()}));
  EXPECT_TRUE(nsqd_.eventually([&] {
    return nsqd_.client_rdy("split", "ch") == std::vector<int64_t>{5} &&
           second.client_rdy("split", "ch") == std::vector<int64_t>{5};
  }));
  consumer.change_max_in_flight(4);
  EXPECT_TRUE(nsqd_.eventually([&] {
    return nsqd_.client_rdy("split", "ch") == std::vector<int64_t>{2} &&
           second.client_rdy("split", "ch") == std::vector<int64_t>{2};
  }));
  EXPECT_FALSE(consumer.connect_to_nsqd(nsqd_.tcp_address())) << "duplicate address";
}

TEST_F(ConsumerTest, MoreConnectionsThanMaxInFlightRotatesRdy) {
  RunningNsqd second;
  ASSERT_EQ(second.start(), "");
  Config c = fast_config();
  c.max_in_flight = 1;
  c.low_rdy_idle_timeout = 1s;
  Seen seen;
  Consumer consumer("rotate", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqds({nsqd_.tcp_address(), second.tcp_address()}));
  // Only one connection may hold the single RDY at a time...
  {
    Producer p1(nsqd_.tcp_address(), Config());
    Producer p2(second.tcp_address(), Config());
    ASSERT_TRUE(p1.publish("rotate", "from-first"));
    ASSERT_TRUE(p2.publish("rotate", "from-second"));
  }
  // ...yet both nsqd's messages arrive as the idle RDY moves over.
  ASSERT_TRUE(seen.wait_count(2, 30s));
  auto total = [&] {
    auto a = nsqd_.client_rdy("rotate", "ch");
    auto b = second.client_rdy("rotate", "ch");
    int64_t sum = 0;
    for (auto v : a) sum += v;
    for (auto v : b) sum += v;
    return sum;
  };
  EXPECT_LE(total(), 1);
}

TEST_F(ConsumerTest, FailureBacksOffToRdyZeroThenRecovers) {
  Config c = fast_config();
  c.max_in_flight = 5;
  c.backoff_multiplier = 500ms;
  c.default_requeue_delay = 0ms;
  std::atomic<int> calls{0};
  Seen ok;
  Consumer consumer("backoff", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    if (calls++ == 0) return tl::unexpected(std::string("fail once"));
    ok.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  publish("backoff", {"a"});
  // Backing off: RDY 0 (1 s at level 1), then RDY 1 to test, then back to 5.
  EXPECT_TRUE(nsqd_.eventually(
      [&] { return nsqd_.client_rdy("backoff", "ch") == std::vector<int64_t>{0}; }, 5s));
  ASSERT_TRUE(ok.wait_count(1));
  EXPECT_TRUE(nsqd_.eventually(
      [&] { return nsqd_.client_rdy("backoff", "ch") == std::vector<int64_t>{5}; }));
}

TEST_F(ConsumerTest, StopFinishesInFlightMessagesThenCloses) {
  Config c = fast_config();
  c.max_in_flight = 50;
  std::atomic<bool> release{false};
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<int> started{0};
  Seen done;
  Consumer consumer("graceful", "ch", c);
  consumer.set_handler(
      [&](Message& m) -> HandlerResult {
        ++started;
        cv.notify_all();
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return release.load(); });
        done.add(m.body(), m.attempts());
        return {};
      },
      4);
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  publish("graceful", numbered(20));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, kEventTimeout, [&] { return started.load() == 4; }));
  }
  consumer.stop();
  EXPECT_FALSE(consumer.wait_for(200ms)) << "stop waits for in-flight messages";
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(consumer.wait_for(kEventTimeout));
  auto handled = done.count();
  EXPECT_EQ(consumer.stats().messages_finished, handled);
  // Everything handled was FIN'd; the rest is back in the channel, none in flight.
  EXPECT_TRUE(nsqd_.eventually([&] {
    return nsqd_.channel_stat("graceful", "ch", "client_count") == 0 &&
           nsqd_.channel_stat("graceful", "ch", "in_flight_count") == 0 &&
           nsqd_.channel_stat("graceful", "ch", "depth") == static_cast<int64_t>(20 - handled);
  })) << "handled "
      << handled << " clients " << nsqd_.channel_stat("graceful", "ch", "client_count")
      << " in flight " << nsqd_.channel_stat("graceful", "ch", "in_flight_count") << " depth "
      << nsqd_.channel_stat("graceful", "ch", "depth");
  EXPECT_FALSE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
}

// Stopping while messages stream: nsqd may have sent more messages before it
// read CLS; they arrive before its CLOSE_WAIT and must be answered too, so the
// consumer may close only after CLOSE_WAIT, not as soon as what it has read is
// answered. Several rounds, because the window is one round trip wide.
TEST_F(ConsumerTest, StopMidStreamAnswersEveryMessageNsqdSent) {
  publish("stream", numbered(6000));
  for (int round = 0; round < 8; ++round) {
    Config c = fast_config();
    c.max_in_flight = 20;
    std::atomic<int> handled{0};
    Consumer consumer("stream", "ch", c);
    // Stopped from the handler, with the stream at full speed.
    consumer.set_handler(
        [&](Message&) -> HandlerResult {
          if (++handled == 100) consumer.stop();
          return {};
        },
        1);
    ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
    ASSERT_TRUE(consumer.wait_for(kEventTimeout));
    EXPECT_EQ(consumer.stats().messages_finished, static_cast<uint64_t>(handled.load()));
    // Once nsqd has seen the connection close it has read every FIN.
    ASSERT_TRUE(
        nsqd_.eventually([&] { return nsqd_.channel_stat("stream", "ch", "client_count") == 0; }));
    ASSERT_EQ(nsqd_.channel_stat("stream", "ch", "in_flight_count"), 0)
        << "round " << round << ": messages left unanswered at stop";
  }
}

TEST_F(ConsumerTest, DirectConnectionIsRetriedAfterNsqdRestarts) {
  Config c = fast_config();
  Seen seen;
  Consumer consumer("again", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  std::string address = nsqd_.tcp_address();
  ASSERT_TRUE(consumer.connect_to_nsqd(address));
  publish("again", {"before"});
  ASSERT_TRUE(seen.wait_count(1));
  ASSERT_TRUE(nsqd_.process.stop());
  testutil::NsqdProcess::Options o;
  o.data_path = nsqd_.dir.path();
  o.extra_args = {"--tcp-address=" + address};
  o.require_http = true;
  testutil::NsqdProcess again;
  ASSERT_EQ(again.start(o), "");
  Producer producer(address, Config());
  ASSERT_TRUE(producer.publish("again", "after"));
  ASSERT_TRUE(seen.wait_count(2));
  EXPECT_EQ(seen.bodies(), (std::vector<std::string>{"before", "after"}));
}

TEST_F(ConsumerTest, ConnectChecksNamesAndHandler) {
  Consumer no_handler("t", "c", Config());
  auto r = no_handler.connect_to_nsqd(nsqd_.tcp_address());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "no handlers");
  Consumer bad_topic("bad topic", "c", Config());
  bad_topic.set_handler([](Message&) -> HandlerResult { return {}; });
  EXPECT_FALSE(bad_topic.connect_to_nsqd(nsqd_.tcp_address()));
  Consumer bad_address("t", "c", Config());
  bad_address.set_handler([](Message&) -> HandlerResult { return {}; });
  EXPECT_FALSE(bad_address.connect_to_nsqd("no-port"));
  EXPECT_FALSE(bad_address.connect_to_lookupd("ftp://x:1"));
}

}  // namespace
}  // namespace nsq::client::test
