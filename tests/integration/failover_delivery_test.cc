// Delivery across a failover (docs/replication.md, "Channel progress",
// "Taking over" and "Retention"): a new leader delivers what the killed one
// had not finished, with the same message ids, and not what its consumers
// had finished before the followers heard of it; delivered segments of the
// replica log are deleted, and a follower left behind starts again from the
// leader's start.

#include <signal.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cluster/ledger.h"
#include "cluster/progress.h"
#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

// The delivery progress a node saved for `topic`, if any.
std::optional<nsqd::cluster::TopicProgress> saved_progress(const std::filesystem::path& data_dir,
                                                           const std::string& topic) {
  const auto path = data_dir / (topic + ".replica.state");
  if (!std::filesystem::exists(path)) return std::nullopt;
  auto p = nsqd::cluster::decode_progress(testutil::read_file(path));
  if (!p) return std::nullopt;
  return *p;
}

// The first offsets of the replica log segments of `topic`, in order.
std::vector<std::uint64_t> segments(const std::filesystem::path& data_dir,
                                    const std::string& topic) {
  std::vector<std::uint64_t> starts;
  const std::string prefix = topic + ".replica.";
  for (const auto& e : std::filesystem::directory_iterator(data_dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".log")) {
      starts.push_back(std::stoull(name.substr(prefix.size(), 20)));
    }
  }
  std::sort(starts.begin(), starts.end());
  return starts;
}

// Bytes of log a set holds from offset 0 on.
std::uint64_t held(const nsqd::cluster::OffsetSet& set) {
  std::uint64_t n = set.cursor();
  for (const auto& [begin, end] : set.ranges()) n += end - begin;
  return n;
}

class FailoverDeliveryTest : public ReplicationTest {
 protected:
  // Kills `leader` and returns the node that leads `topic` after it.
  NsqdProcess* fail_over(NsqdProcess* leader, NsqdProcess* b, NsqdProcess* c,
                         const std::string& topic) {
    if (!leader->kill_now(ms(30000))) return nullptr;  // a SIGKILL waits for a pending fsync
    auto r = await_epoch(b, topic, 2, ms(10000));
    if (!r || r->epoch != 2) return nullptr;
    return r->leader == id(b) ? b : r->leader == id(c) ? c : nullptr;
  }

  // Subscribes to topic/channel on `node` with RDY `rdy`.
  static bool subscribe(RawClient& consumer, NsqdProcess* node, const std::string& topic,
                        const std::string& channel, int rdy) {
    if (!consumer.connect(node->tcp_port())) return false;
    consumer.magic();
    consumer.sub(topic, channel);
    if (!got_response(consumer, "OK")) return false;
    return consumer.rdy(rdy);
  }

  // Up to `n` messages (body -> id), until none comes for `quiet`.
  static std::map<std::string, std::string> receive(RawClient& consumer, std::size_t n, ms quiet) {
    std::map<std::string, std::string> got;
    while (got.size() < n) {
      auto r = consumer.read_skip_heartbeats(quiet);
      auto m = testutil::to_test_message(r.frame);
      if (!m) break;
      got.emplace(m->body, m->id);
    }
    return got;
  }
};

TEST_F(FailoverDeliveryTest, ANewLeaderDeliversWhatTheOldOneHadNotFinished) {
  ASSERT_TRUE(start_three_with_topic());
  auto *a = nodes_[0].get(), *b = nodes_[1].get(), *c = nodes_[2].get();
  RawClient consumer;
  ASSERT_TRUE(subscribe(consumer, a, "t", "c", 100));

  RawClient producer;
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  std::vector<std::string> bodies;
  for (int i = 0; i < 60; ++i) bodies.push_back("message-" + std::to_string(100 + i));
  ASSERT_TRUE(producer.mpub("t", bodies));
  ASSERT_TRUE(got_response(producer, "OK"));

  // The consumer finishes 40 and keeps 20 in flight.
  auto first = receive(consumer, bodies.size(), kReply);
  ASSERT_EQ(first.size(), bodies.size());
  std::map<std::string, std::string> finished, open;
  for (const auto& [body, msg_id] : first) {
    if (finished.size() < 40) {
      consumer.fin(msg_id);
      finished.emplace(body, msg_id);
    } else {
      open.emplace(body, msg_id);
    }
  }
  // Both followers hear of the 40 FINs (the progress goes out with the
  // fetch answers and is saved).
  const std::uint64_t forty = 40 * nsqd::cluster::record_size(bodies[0].size());
  for (int node : {1, 2}) {
    EXPECT_TRUE(eventually(
        [&] {
          auto p = saved_progress(dir_.path() / ("node" + std::to_string(node)), "t");
          return p && p->channels.count("c") && held(p->channels.at("c").finished) == forty &&
                 held(p->handed) == 60 * nsqd::cluster::record_size(bodies[0].size());
        },
        ms(10000)))
        << "node " << node;
  }

  NsqdProcess* leader = fail_over(a, b, c, "t");
  ASSERT_TRUE(leader);
  RawClient again;
  ASSERT_TRUE(subscribe(again, leader, "t", "c", 100));
  auto second = receive(again, bodies.size(), ms(3000));
  EXPECT_EQ(second, open) << "the 20 in flight come again, with their ids; the 40 FIN'd do not";
  for (const auto& [body, msg_id] : second) again.fin(msg_id);

  // The new leader records its own progress: after the FINs, nothing is owed.
  RawClient p2;
  ASSERT_TRUE(p2.connect(leader->tcp_port()));
  p2.magic();
  p2.pub("t", "after");
  ASSERT_TRUE(got_response(p2, "OK"));
  auto third = receive(again, 1, kReply);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third.begin()->first, "after");
}

TEST_F(FailoverDeliveryTest, MessagesNoChannelHadYetReachTheFirstChannelOnTheNewLeader) {
  ASSERT_TRUE(start_three_with_topic());
  auto *a = nodes_[0].get(), *b = nodes_[1].get(), *c = nodes_[2].get();
  RawClient producer;
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  std::set<std::string> sent;
  for (int i = 0; i < 20; ++i) {
    sent.insert("waiting-" + std::to_string(i));
    ASSERT_TRUE(producer.pub("t", "waiting-" + std::to_string(i)));
    ASSERT_TRUE(got_response(producer, "OK"));
  }
  // A deferred one keeps its delay across the failover.
  ASSERT_TRUE(producer.dpub("t", 60000, "later"));
  ASSERT_TRUE(got_response(producer, "OK"));

  NsqdProcess* leader = fail_over(a, b, c, "t");
  ASSERT_TRUE(leader);
  RawClient consumer;
  ASSERT_TRUE(subscribe(consumer, leader, "t", "first", 100));
  auto got = receive(consumer, sent.size() + 1, ms(3000));
  std::set<std::string> bodies;
  for (const auto& [body, msg_id] : got) bodies.insert(body);
  EXPECT_EQ(bodies, sent) << "all 20, and not the deferred one before its time";
}

TEST_F(FailoverDeliveryTest, DeliveredSegmentsGoAndAFollowerLeftBehindStartsAtTheLeadersStart) {
  lease_ttl_s_ = 2;
  const std::vector<std::string> small = {"--max-bytes-per-file=2048"};
  auto* a = start_node(small);
  auto* b = start_node(small);
  auto* c = start_node(small);
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  ASSERT_TRUE(await_epoch(c, "t", 1, kReply));
  RawClient consumer;
  ASSERT_TRUE(subscribe(consumer, a, "t", "c", 100));

  // c freezes; a and b go on without it once it leaves the in-sync set.
  ASSERT_TRUE(c->send_signal(SIGSTOP));
  RawClient producer;
  ASSERT_TRUE(producer.connect(a->tcp_port()));
  producer.magic();
  std::size_t sent = 0;
  for (int batch = 0; batch < 4; ++batch) {
    std::vector<std::string> bodies;
    for (int i = 0; i < 50; ++i) bodies.push_back(std::string(90, 'a' + batch) + std::to_string(i));
    ASSERT_TRUE(producer.mpub("t", bodies));
    ASSERT_TRUE(got_response(producer, "OK", ms(15000)));
    sent += bodies.size();
  }
  std::size_t finished = 0;
  while (finished < sent) {  // RDY 100: FIN'd as they come
    auto got = receive(consumer, 50, kReply);
    ASSERT_EQ(got.size(), 50u) << finished;
    for (const auto& [body, msg_id] : got) consumer.fin(msg_id);
    finished += got.size();
  }

  // Everything was delivered: a and b keep only their last segment.
  for (int node : {0, 1}) {
    EXPECT_TRUE(eventually(
        [&] { return segments(dir_.path() / ("node" + std::to_string(node)), "t").size() == 1; },
        ms(10000)))
        << "node " << node;
  }
  const std::uint64_t start = segments(dir_.path() / "node0", "t").at(0);
  EXPECT_GT(start, 0u);

  // c wakes up behind a's start: it starts its log there and is in sync again.
  ASSERT_TRUE(c->send_signal(SIGCONT));
  EXPECT_TRUE(eventually(
      [&] {
        auto r = replication(a, "t");
        return r && r->isr.size() == 3;
      },
      ms(20000)))
      << "c:\n"
      << c->log() << "\na:\n"
      << a->log();
  EXPECT_GE(segments(dir_.path() / "node2", "t").at(0), start);
  EXPECT_NE(c->log().find("starting there"), std::string::npos);
  // Publishing goes on with all three in sync.
  ASSERT_TRUE(producer.pub("t", "after"));
  EXPECT_TRUE(got_response(producer, "OK"));
}

}  // namespace
}  // namespace nsq::integration
