// A Jepsen-style soak of cluster mode (docs/replication.md, "Failures"): a
// real etcd and three nsqd, producers (PUB and MPUB) on every node and a
// consumer that follows the leader, while a randomized schedule applies
// faults: the leader SIGKILLed and restarted, the leader frozen (SIGSTOP)
// past its lease and resumed, a follower SIGKILLed and restarted, etcd
// restarted, and node 0 (leader or follower, in a network namespace of its
// own) cut off from etcd, the other nodes and its clients past its lease,
// then healed (as root; without a namespace the soak runs without this
// fault). After each fault the cluster must take publishes again and
// bring every replica back in sync; at the end, no acknowledged message is
// missing from the leader's log or from what the consumer got. The
// duplicate rate is reported.
//
// NSQ_CLUSTER_SOAK_SECONDS sets the length (CTest: 180); NSQ_SOAK_SEED
// replays a schedule.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "integration/net_namespace.h"
#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

class ClusterSoakTest : public ReplicationTest {
 protected:
  void SetUp() override {
    if (testutil::nsqd_binary_path().empty()) GTEST_SKIP() << "no nsqd binary";
    if (testutil::etcd_binary_path().empty()) GTEST_SKIP() << "no etcd";
    if (::geteuid() == 0) {
      netns_ = std::make_unique<NetNamespace>();
      if (!netns_->ok()) netns_.reset();
    }
    if (netns_) etcd_.set_advertised_host(netns_->host_ip());
    const std::string err = etcd_.start(dir_.path() / "etcd");
    ASSERT_TRUE(err.empty()) << err;
  }

  // Node 0 in the namespace, reachable at its address there; the others
  // on every interface of this one, which the namespace reaches.
  bool start_nodes() {
    // Segments large enough that no delivered one is deleted during the
    // soak: the check at the end reads every acknowledged message in the
    // leader's log (at 10-15k messages a second, 100 MB segments rolled
    // and went, and the check counted them missing).
    const std::string segments = "--max-bytes-per-file=1073741824";
    if (!netns_) {
      for (int i = 0; i < 3; ++i) {
        if (!start_node({segments})) return false;
      }
      return true;
    }
    if (!start_node({"--tcp-address=0.0.0.0:0", "--http-address=0.0.0.0:0",
                     "--broadcast-address=" + netns_->inside_ip(), segments},
                    netns_->wrapper(dir_.path(), testutil::nsqd_binary_path()),
                    netns_->inside_ip())) {
      return false;
    }
    for (int i = 1; i < 3; ++i) {
      if (!start_node({"--tcp-address=0.0.0.0:0", "--http-address=0.0.0.0:0",
                       "--broadcast-address=" + netns_->host_ip(), segments})) {
        return false;
      }
    }
    return true;
  }

  // The index in nodes_ of the node at `at` (-1: none).
  int index_of(const Endpoint& at) const {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      if (at.port != 0 && nodes_[i]->tcp_port() == at.port) return static_cast<int>(i);
    }
    return -1;
  }

  // Every replica in sync again, as the leader says.
  bool all_in_sync(const std::function<Endpoint()>& find_leader, ms timeout) {
    return eventually(
        [&] {
          const int i = index_of(find_leader());
          if (i < 0) return false;
          auto r = replication(nodes_[static_cast<std::size_t>(i)].get(), "t");
          return r && r->isr.size() == 3;
        },
        timeout);
  }

  // Each node's view of the topic and the end of its log: what a failure
  // message needs to say which replica stayed behind and why.
  std::string describe_nodes() {
    std::string out;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      NsqdProcess* node = nodes_[i].get();
      auto r = i == 0 && netns_ ? netns_->inside([&] { return replication(node, "t"); })
                                : replication(node, "t");
      out += "node " + std::to_string(i);
      if (r) {
        out +=
            ": " + r->role + " epoch " + std::to_string(r->epoch) + " leader " + r->leader + " isr";
        for (const auto& m : r->isr) out += " " + m;
        for (const auto& [m, n] : r->lag) out += " lag " + m + "=" + std::to_string(n);
      }
      // The whole log goes to a file (a fault's cause is often minutes
      // before it shows); the message gets its end.
      const std::string log = node->log();
      const auto kept = std::filesystem::current_path() / "cluster_soak_failure" /
                        ("node" + std::to_string(i) + ".log");
      std::filesystem::create_directories(kept.parent_path());
      std::ofstream(kept) << log;
      out += " (whole log: " + kept.string() + ")";
      out += "\n" + log.substr(log.size() > 3000 ? log.size() - 3000 : 0) + "\n";
    }
    return out;
  }

  std::unique_ptr<NetNamespace> netns_;  // null: not root, no partitions
};

TEST_F(ClusterSoakTest, NoAcknowledgedMessageIsLostUnderRandomFaults) {
  const int seconds = env_int("NSQ_CLUSTER_SOAK_SECONDS", 180);
  const unsigned seed =
      static_cast<unsigned>(env_int("NSQ_SOAK_SEED", static_cast<int>(std::random_device{}())));
  std::printf("[ soak %d s, seed %u (NSQ_SOAK_SEED replays it) ]\n", seconds, seed);
  std::mt19937 rng(seed);
  lease_ttl_s_ = 2;
  if (!netns_) std::printf("[ no network namespace (needs root): no partitions ]\n");
  ASSERT_TRUE(start_nodes());
  ASSERT_TRUE(http(nodes_[0].get(), "POST", "/topic/create?topic=t"));
  for (int i = 1; i < 3; ++i) ASSERT_TRUE(await_epoch(nodes_[i].get(), "t", 1, kReply));

  const auto find_leader = leader_finder("t");
  Consumer consumer(find_leader);
  // Node 0's producers publish from its namespace (to 127.0.0.1 there).
  std::function<void()> enter;
  if (netns_) enter = [this] { netns_->enter(); };
  Producers inside({nodes_[0]->tcp_port()}, 2, enter, 10, "q");
  Producers outside({nodes_[1]->tcp_port(), nodes_[2]->tcp_port()}, 4, {}, 10);
  const auto acked_now = [&] { return inside.acked() + outside.acked(); };
  const char* names[] = {"leader SIGKILL + restart", "leader SIGSTOP past its lease + SIGCONT",
                         "follower SIGKILL + restart", "etcd restart",
                         "node 0 cut off past its lease + healed"};
  int faults[5] = {0, 0, 0, 0, 0};
  const int kinds = netns_ ? 5 : 4;
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < deadline) {
    // The cluster takes publishes between faults.
    const std::size_t before = acked_now();
    ASSERT_TRUE(eventually([&] { return acked_now() >= before + 200; }, ms(30000)))
        << "publishing stalled after " << faults[0] + faults[1] + faults[2] + faults[3] + faults[4]
        << " faults (seed " << seed << ")";
    const int leader = index_of(find_leader());
    ASSERT_GE(leader, 0);
    const int follower = (leader + 1 + static_cast<int>(rng() % 2)) % 3;
    const int fault = static_cast<int>(rng() % static_cast<unsigned>(kinds));
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
      case 3:
        etcd_.kill_now();
        ASSERT_TRUE(etcd_.start(dir_.path() / "etcd").empty());
        break;
      default: {
        ASSERT_TRUE(netns_->cut());
        // Past the lease: the others lead without node 0, and have dropped
        // it from the in-sync set.
        const std::string cut_id =
            netns_->inside_ip() + ":" + std::to_string(nodes_[0]->tcp_port());
        ASSERT_TRUE(eventually(
            [&] {
              for (int i = 1; i < 3; ++i) {
                auto r = replication(nodes_[i].get(), "t");
                if (r && r->role == "leader" &&
                    std::find(r->isr.begin(), r->isr.end(), cut_id) == r->isr.end()) {
                  return true;
                }
              }
              return false;
            },
            ms(20000)))
            << "node 0 cut off, and no other node leads without it (seed " << seed << ")";
        ASSERT_TRUE(netns_->heal());
        break;
      }
    }
    ASSERT_TRUE(all_in_sync(find_leader, ms(30000)))
        << "after " << names[fault] << " (seed " << seed << ")\n"
        << describe_nodes();
  }
  std::vector<std::string> acked = inside.stop();
  for (auto& body : outside.stop()) acked.push_back(std::move(body));
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
      << ")\n"
      << describe_nodes();
  std::printf(
      "[ faults: %d leader kills, %d leader freezes, %d follower kills, %d etcd restarts, "
      "%d partitions; %zu acknowledged, %zu delivered again (%.1f%%) ]\n",
      faults[0], faults[1], faults[2], faults[3], faults[4], acked.size(), delivery.second,
      acked.empty()
          ? 0.0
          : 100.0 * static_cast<double>(delivery.second) / static_cast<double>(acked.size()));
}

}  // namespace
}  // namespace nsq::integration
