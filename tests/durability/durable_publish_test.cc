// --sync-publish: an OK means the message is on disk (fsynced) in every
// channel (or the topic, before it has channels), and a message leaves the
// disk only once FIN'd. So a SIGKILL at any moment loses nothing that was
// acknowledged, and in-flight messages come back after a restart
// (duplicates allowed: at-least-once).
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "client/client_harness.h"
#include "nsq/client/consumer.h"
#include "nsq/client/producer.h"

namespace nsq::client::test {
namespace {

constexpr int kPublishers = 8;

// nsqd with --sync-publish on a data directory that outlives restarts.
class DurableNsqd {
 public:
  std::string start() {
    process_ = std::make_unique<testutil::NsqdProcess>();
    testutil::NsqdProcess::Options o;
    o.data_path = dir_.path();
    // NSQ_TEST_NO_SYNC_PUBLISH=1 runs the same tests without the switch:
    // they then fail, losing the memory queue (the control experiment).
    o.extra_args = {std::getenv("NSQ_TEST_NO_SYNC_PUBLISH") ? "--sync-publish=false"
                                                            : "--sync-publish"};
    o.require_http = true;
    return process_->start(o);
  }
  void kill() { ASSERT_TRUE(process_->kill_now()); }
  testutil::NsqdProcess& process() { return *process_; }
  std::string tcp_address() const { return "127.0.0.1:" + std::to_string(process_->tcp_port()); }
  int http_port() const { return process_->http_port(); }

  void create_channel(const std::string& topic, const std::string& channel) {
    auto t = testutil::http_once(http_port(), "POST", "/topic/create?topic=" + topic);
    ASSERT_TRUE(t && t->status == 200);
    auto c = testutil::http_once(http_port(), "POST",
                                 "/channel/create?topic=" + topic + "&channel=" + channel);
    ASSERT_TRUE(c && c->status == 200);
  }

 private:
  testutil::TempDir dir_;
  std::unique_ptr<testutil::NsqdProcess> process_;
};

// Publishes unique bodies from kPublishers threads until stopped; records
// those nsqd acknowledged.
class PublishLoad {
 public:
  PublishLoad(const std::string& address, const std::string& topic, int round) {
    for (int p = 0; p < kPublishers; ++p) {
      threads_.emplace_back([this, address, topic, round, p] {
        Config c;
        c.dial_timeout = 500ms;
        Producer producer(address, c);
        for (int i = 0; !stop_.load(); ++i) {
          std::string body =
              "r" + std::to_string(round) + "-p" + std::to_string(p) + "-" + std::to_string(i);
          if (i % 10 == 9) {  // an MPUB now and then
            std::vector<std::string> bodies = {body + "a", body + "b", body + "c"};
            if (!producer.multi_publish(topic, bodies)) return;
            std::lock_guard lock(mu_);
            acked_.insert(bodies.begin(), bodies.end());
          } else {
            if (!producer.publish(topic, body)) return;  // nsqd is gone
            std::lock_guard lock(mu_);
            acked_.insert(body);
          }
          ++count_;
        }
      });
    }
  }
  ~PublishLoad() { stop(); }
  void stop() {
    stop_ = true;
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  int count() const { return count_.load(); }
  std::set<std::string> acked() {
    std::lock_guard lock(mu_);
    return acked_;
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
  std::mutex mu_;
  std::set<std::string> acked_;
  std::vector<std::thread> threads_;
};

// Consumes the channel until `want` are all seen (and returns what was seen).
std::set<std::string> drain_until(const std::string& address, const std::string& topic,
                                  const std::string& channel, const std::set<std::string>& want) {
  Seen seen;
  Config c = fast_config();
  c.max_in_flight = 200;
  Consumer consumer(topic, channel, c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  EXPECT_TRUE(consumer.connect_to_nsqd(address));
  auto deadline = std::chrono::steady_clock::now() + 30s;
  std::set<std::string> got;
  while (std::chrono::steady_clock::now() < deadline) {
    seen.wait_count(seen.count() + 1, 200ms);
    auto bodies = seen.bodies();
    got = std::set<std::string>(bodies.begin(), bodies.end());
    if (std::includes(got.begin(), got.end(), want.begin(), want.end())) break;
  }
  return got;
}

std::vector<std::string> missing(const std::set<std::string>& want,
                                 const std::set<std::string>& got) {
  std::vector<std::string> out;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(out));
  return out;
}

// 20 rounds: publishers at full speed, SIGKILL at a random moment, restart,
// and every acknowledged message of every round so far is delivered.
TEST(DurablePublish, SigkillAtRandomMomentsLosesNothingAcknowledged) {
  DurableNsqd nsqd;
  ASSERT_EQ(nsqd.start(), "");
  nsqd.create_channel("durable", "ch");
  std::mt19937 rng(std::random_device{}());
  std::set<std::string> all_acked;
  for (int round = 0; round < 20; ++round) {
    {
      PublishLoad load(nsqd.tcp_address(), "durable", round);
      // The kill lands at a random point of the load: its timing is the test.
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng() % 200));
      nsqd.kill();
      load.stop();
      auto acked = load.acked();
      all_acked.insert(acked.begin(), acked.end());
    }
    ASSERT_EQ(nsqd.start(), "") << "round " << round;
  }
  ASSERT_GT(all_acked.size(), 100u) << "the load did publish";
  auto got = drain_until(nsqd.tcp_address(), "durable", "ch", all_acked);
  auto lost = missing(all_acked, got);
  std::printf("[durable] rounds=20 acked=%zu lost=%zu\n", all_acked.size(), lost.size());
  EXPECT_TRUE(lost.empty()) << lost.size() << " acknowledged messages lost, e.g. " << lost.front();
}

// Before any channel exists the topic's disk queue holds the messages; they
// must survive a kill and reach the channel created after the restart.
TEST(DurablePublish, TopicBacklogWithoutChannelsSurvivesSigkill) {
  DurableNsqd nsqd;
  ASSERT_EQ(nsqd.start(), "");
  std::set<std::string> acked;
  {
    PublishLoad load(nsqd.tcp_address(), "no_channel_yet", 0);
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (load.count() < 300 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(5ms);
    nsqd.kill();
    load.stop();
    acked = load.acked();
  }
  ASSERT_EQ(nsqd.start(), "");
  auto got = drain_until(nsqd.tcp_address(), "no_channel_yet", "late", acked);
  auto lost = missing(acked, got);
  EXPECT_TRUE(lost.empty()) << lost.size() << " lost, e.g. " << lost.front();
}

// Messages delivered but not FIN'd (in flight, requeued with a delay) when
// nsqd dies are delivered again after the restart; FIN'd ones may repeat.
TEST(DurablePublish, InFlightAndRequeuedMessagesComeBackAfterSigkill) {
  DurableNsqd nsqd;
  ASSERT_EQ(nsqd.start(), "");
  nsqd.create_channel("inflight", "ch");
  std::vector<std::string> bodies;
  for (int i = 0; i < 300; ++i) bodies.push_back("m" + std::to_string(i));
  {
    Producer producer(nsqd.tcp_address(), Config());
    ASSERT_TRUE(producer.multi_publish("inflight", bodies));
  }
  std::set<std::string> finished, unanswered;
  {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Message> held;
    int handled = 0;
    Config c = fast_config();
    c.max_in_flight = 300;
    Consumer consumer("inflight", "ch", c);
    consumer.set_handler([&](Message& m) -> HandlerResult {
      std::lock_guard lock(mu);
      int n = ++handled;
      if (n % 3 == 0) {
        finished.insert(m.body());  // FIN'd on return
      } else {
        m.disable_auto_response();
        if (n % 3 == 1) {
          m.requeue_without_backoff(4s);  // deferred, still not done (due after the restart)
        } else {
          held.push_back(m);  // in flight, never answered
        }
        unanswered.insert(m.body());
      }
      cv.notify_all();
      return {};
    });
    ASSERT_TRUE(consumer.connect_to_nsqd(nsqd.tcp_address()));
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, kEventTimeout, [&] { return handled == 300; }));
    lock.unlock();
    // The FINs have reached nsqd once its in-flight count is down to the rest.
    auto in_flight = [&] {
      auto r = testutil::http_once(nsqd.http_port(), "GET", "/stats?format=json&topic=inflight");
      rapidjson::Document doc;
      if (!r) return int64_t{-1};
      doc.Parse(r->body.c_str());
      const auto& ch = doc["topics"][0]["channels"][0];
      return ch["in_flight_count"].GetInt64() + ch["deferred_count"].GetInt64();
    };
    auto deadline = std::chrono::steady_clock::now() + kEventTimeout;
    while (in_flight() != 200 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(10ms);
    ASSERT_EQ(in_flight(), 200);
    nsqd.kill();
  }
  ASSERT_EQ(nsqd.start(), "");
  auto got = drain_until(nsqd.tcp_address(), "inflight", "ch", unanswered);
  auto lost = missing(unanswered, got);
  EXPECT_TRUE(lost.empty()) << lost.size() << " in-flight/requeued messages lost, e.g. "
                            << lost.front();
}

// DPUB and HTTP /pub are durable too; after a clean shutdown nothing FIN'd
// comes back.
TEST(DurablePublish, DeferredAndHttpPublishesSurviveAndFinishedOnesStayGone) {
  DurableNsqd nsqd;
  ASSERT_EQ(nsqd.start(), "");
  nsqd.create_channel("mixed", "ch");
  {
    Producer producer(nsqd.tcp_address(), Config());
    ASSERT_TRUE(producer.publish("mixed", "done-1"));
    ASSERT_TRUE(producer.publish("mixed", "done-2"));
  }
  {
    std::set<std::string> done = {"done-1", "done-2"};
    auto got = drain_until(nsqd.tcp_address(), "mixed", "ch", done);
    ASSERT_EQ(got, done);
  }
  const auto due = std::chrono::steady_clock::now() + 3s;
  {
    Producer producer(nsqd.tcp_address(), Config());
    ASSERT_TRUE(producer.deferred_publish("mixed", 3000ms, "deferred"));
  }
  auto pub = testutil::http_once(nsqd.http_port(), "POST", "/pub?topic=mixed", "over-http");
  ASSERT_TRUE(pub && pub->status == 200);
  nsqd.kill();
  ASSERT_EQ(nsqd.start(), "");
  // The delay is on disk (the channel's journal of due times): after a crash
  // the deferred message still waits for its time. FIN'd messages whose
  // commit had not reached the meta file may come again (at-least-once).
  std::set<std::string> want = {"deferred", "over-http"};
  auto got = drain_until(nsqd.tcp_address(), "mixed", "ch", want);
  EXPECT_TRUE(missing(want, got).empty());
  EXPECT_GE(std::chrono::steady_clock::now(), due - 50ms) << "delivered before its time";
  ASSERT_TRUE(nsqd.process().stop());
  ASSERT_EQ(nsqd.start(), "");
  auto depth = testutil::http_once(nsqd.http_port(), "GET", "/stats?format=json&topic=mixed");
  ASSERT_TRUE(depth);
  rapidjson::Document doc;
  doc.Parse(depth->body.c_str());
  EXPECT_EQ(doc["topics"][0]["channels"][0]["depth"].GetInt64(), 0)
      << "a clean restart after everything was FIN'd delivers nothing again";
}

}  // namespace
}  // namespace nsq::client::test
