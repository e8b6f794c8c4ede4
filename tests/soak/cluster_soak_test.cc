// A Jepsen-style soak of cluster mode (docs/replication.md, "Failures"): a
// real etcd and three nsqd, producers (PUB and MPUB) on every node and a
// consumer that follows the leader, while a randomized schedule applies
// faults: the leader SIGKILLed and restarted, the leader frozen (SIGSTOP)
// past its lease and resumed, a follower SIGKILLed and restarted, etcd
// restarted. After each fault the cluster must take publishes again and
// bring every replica back in sync; at the end, no acknowledged message is
// missing from the leader's log or from what the consumer got. The
// duplicate rate is reported.
//
// NSQ_CLUSTER_SOAK_SECONDS sets the length (CTest: 180); NSQ_SOAK_SEED
// replays a schedule.

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

class ClusterSoakTest : public ReplicationTest {
 protected:
  // The index in nodes_ of the node whose TCP port is `port` (-1: none).
  int index_of(int port) const {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i]->tcp_port() == port) return static_cast<int>(i);
    }
    return -1;
  }

  // Every replica in sync again, as the leader says.
  bool all_in_sync(const std::function<int()>& find_leader, ms timeout) {
    return eventually(
        [&] {
          const int i = index_of(find_leader());
          if (i < 0) return false;
          auto r = replication(nodes_[static_cast<std::size_t>(i)].get(), "t");
          return r && r->isr.size() == 3;
        },
        timeout);
  }
};

TEST_F(ClusterSoakTest, NoAcknowledgedMessageIsLostUnderRandomFaults) {
  const int seconds = env_int("NSQ_CLUSTER_SOAK_SECONDS", 180);
  const unsigned seed =
      static_cast<unsigned>(env_int("NSQ_SOAK_SEED", static_cast<int>(std::random_device{}())));
  std::printf("[ soak %d s, seed %u (NSQ_SOAK_SEED replays it) ]\n", seconds, seed);
  std::mt19937 rng(seed);
  lease_ttl_s_ = 2;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(start_node());
  ASSERT_TRUE(http(nodes_[0].get(), "POST", "/topic/create?topic=t"));
  for (int i = 1; i < 3; ++i) ASSERT_TRUE(await_epoch(nodes_[i].get(), "t", 1, kReply));

  const auto find_leader = leader_finder("t");
  Consumer consumer(find_leader);
  Producers producers({nodes_[0]->tcp_port(), nodes_[1]->tcp_port(), nodes_[2]->tcp_port()}, 6, {},
                      10);
  const char* names[] = {"leader SIGKILL + restart", "leader SIGSTOP past its lease + SIGCONT",
                         "follower SIGKILL + restart", "etcd restart"};
  int faults[4] = {0, 0, 0, 0};
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < deadline) {
    // The cluster takes publishes between faults.
    const std::size_t before = producers.acked();
    ASSERT_TRUE(eventually([&] { return producers.acked() >= before + 200; }, ms(30000)))
        << "publishing stalled after " << faults[0] + faults[1] + faults[2] + faults[3]
        << " faults (seed " << seed << ")";
    const int leader = index_of(find_leader());
    ASSERT_GE(leader, 0);
    const int follower = (leader + 1 + static_cast<int>(rng() % 2)) % 3;
    const int fault = static_cast<int>(rng() % 4);
    ++faults[fault];
    switch (fault) {
      case 0:
        ASSERT_TRUE(nodes_[leader]->kill_now(ms(30000)));
        ASSERT_TRUE(restart_node(static_cast<std::size_t>(leader)));
        break;
      case 1: {
        ASSERT_TRUE(nodes_[leader]->send_signal(SIGSTOP));
        // Past the lease: another node leads meanwhile.
        const int other = (leader + 1) % 3;
        std::optional<Replication> r;
        eventually(
            [&] {
              r = replication(nodes_[other].get(), "t");
              return r && !r->leader.ends_with(":" + std::to_string(nodes_[leader]->tcp_port()));
            },
            ms(15000));
        ASSERT_TRUE(nodes_[leader]->send_signal(SIGCONT));
        break;
      }
      case 2:
        ASSERT_TRUE(nodes_[follower]->kill_now(ms(30000)));
        ASSERT_TRUE(restart_node(static_cast<std::size_t>(follower)));
        break;
      default:
        etcd_.kill_now();
        ASSERT_TRUE(etcd_.start(dir_.path() / "etcd").empty());
        break;
    }
    ASSERT_TRUE(all_in_sync(find_leader, ms(30000)))
        << "after " << names[fault] << " (seed " << seed << ")";
  }
  const std::vector<std::string> acked = producers.stop();
  const int leader = index_of(find_leader());
  ASSERT_GE(leader, 0);
  EXPECT_EQ(not_once_in_log(dir_.path() / ("node" + std::to_string(leader)), "t", acked), 0u)
      << "of " << acked.size() << " acknowledged, missing from the leader's log (seed " << seed
      << ")";
  std::pair<std::size_t, std::size_t> delivery;
  EXPECT_TRUE(eventually(
      [&] {
        delivery = consumer.missing_and_repeats(acked);
        return delivery.first == 0;
      },
      ms(30000)))
      << delivery.first << " of " << acked.size() << " acknowledged never delivered (seed " << seed
      << ")";
  std::printf(
      "[ faults: %d leader kills, %d leader freezes, %d follower kills, %d etcd restarts; "
      "%zu acknowledged, %zu delivered again (%.1f%%) ]\n",
      faults[0], faults[1], faults[2], faults[3], acked.size(), delivery.second,
      acked.empty()
          ? 0.0
          : 100.0 * static_cast<double>(delivery.second) / static_cast<double>(acked.size()));
}

}  // namespace
}  // namespace nsq::integration
