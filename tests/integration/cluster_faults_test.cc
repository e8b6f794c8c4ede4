// Cluster mode under faults (docs/replication.md, "Failures"): a leader
// frozen past its lease, and a leader cut off from etcd and the other nodes
// by a network partition (it runs in a network namespace of its own whose
// link is taken down), while producers keep publishing to it. Whatever it
// answered OK is in the new leader's log; once it runs again or the
// partition heals, it follows, and its log converges to the leader's.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "integration/net_namespace.h"
#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

// Every acknowledged message is once in the leader's log; once node 0 (the
// former leader) is in sync again, once in its log too.
void expect_held_and_converged(const std::vector<std::string>& acked, NsqdProcess* leader,
                               std::size_t leader_index, const std::filesystem::path& dir) {
  EXPECT_EQ(not_once_in_log(dir / ("node" + std::to_string(leader_index)), "t", acked), 0u)
      << "of " << acked.size() << " acknowledged";
  EXPECT_TRUE(eventually(
      [&] {
        auto rl = ReplicationTest::replication(leader, "t");
        return rl && rl->isr.size() == 3;
      },
      ms(20000)));
  EXPECT_EQ(not_once_in_log(dir / "node0", "t", acked), 0u) << "node 0's log converged";
}

TEST_F(ReplicationTest, AFrozenLeaderAcknowledgesNothingItCouldLoseAndFollowsWhenItWakes) {
  ASSERT_TRUE(start_three_with_topic());
  auto *a = nodes_[0].get(), *b = nodes_[1].get(), *c = nodes_[2].get();

  Producers producers({a->tcp_port()}, 3);
  ASSERT_TRUE(eventually([&] { return producers.acked() >= 100; }, ms(20000)));
  ASSERT_TRUE(a->send_signal(SIGSTOP));
  auto r = await_epoch(b, "t", 2, ms(10000));
  ASSERT_TRUE(r && r->epoch == 2) << "a new leader while a is frozen";
  NsqdProcess* leader = r->leader == id(b) ? b : c;
  const std::size_t leader_index = leader == b ? 1 : 2;

  // a wakes with publishes pending: it must not confirm them on its own, and
  // from then on passes publishes to the new leader.
  const std::size_t before = producers.acked();
  ASSERT_TRUE(a->send_signal(SIGCONT));
  EXPECT_TRUE(eventually(
      [&] {
        auto ra = replication(a, "t");
        return ra && ra->role == "follower" && ra->epoch >= 2;
      },
      ms(10000)));
  EXPECT_TRUE(eventually([&] { return producers.acked() >= before + 100; }, ms(20000)))
      << "publishing to a goes on through the new leader\n"
      << a->log();
  const std::vector<std::string> acked = producers.stop();

  expect_held_and_converged(acked, leader, leader_index, dir_.path());
}

class PartitionTest : public ReplicationTest {
 protected:
  void SetUp() override {
    if (testutil::nsqd_binary_path().empty()) GTEST_SKIP() << "no nsqd binary";
    if (testutil::etcd_binary_path().empty()) GTEST_SKIP() << "no etcd";
    if (::geteuid() != 0) GTEST_SKIP() << "a network namespace needs root";
    netns_ = std::make_unique<NetNamespace>();
    ASSERT_TRUE(netns_->ok()) << "could not set up a network namespace and a veth pair";
    etcd_.set_advertised_host(netns_->host_ip());
    const std::string err = etcd_.start(dir_.path() / "etcd");
    ASSERT_TRUE(err.empty()) << err;
  }

  std::unique_ptr<NetNamespace> netns_;
};

TEST_F(PartitionTest, ALeaderCutOffAcknowledgesNothingItCouldLoseAndFollowsWhenItHeals) {
  lease_ttl_s_ = 2;
  // a in the namespace, b and c outside; each reachable at its broadcast address.
  auto* a = start_node({"--tcp-address=0.0.0.0:0", "--http-address=0.0.0.0:0",
                        "--broadcast-address=" + netns_->inside_ip()},
                       netns_->wrapper(dir_.path(), testutil::nsqd_binary_path()));
  const std::vector<std::string> outside = {"--tcp-address=0.0.0.0:0", "--http-address=0.0.0.0:0",
                                            "--broadcast-address=" + netns_->host_ip()};
  auto* b = start_node(outside);
  auto* c = start_node(outside);
  ASSERT_TRUE(a && b && c);
  const std::string a_id = netns_->inside_ip() + ":" + std::to_string(a->tcp_port());
  auto a_stats = [&] { return netns_->inside([&] { return replication(a, "t"); }); };
  ASSERT_TRUE(netns_->inside([&] { return http(a, "POST", "/topic/create?topic=t"); }));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  ASSERT_TRUE(await_epoch(c, "t", 1, kReply));
  ASSERT_EQ(replication(b, "t")->leader, a_id);

  Producers producers({a->tcp_port()}, 3, [&] { netns_->enter(); });
  ASSERT_TRUE(eventually([&] { return producers.acked() >= 100; }, ms(20000)));
  ASSERT_TRUE(netns_->cut());

  // The majority elects a leader and takes publishes.
  auto r = await_epoch(b, "t", 2, ms(10000));
  ASSERT_TRUE(r && r->epoch == 2);
  NsqdProcess* leader =
      r->leader == netns_->host_ip() + ":" + std::to_string(b->tcp_port()) ? b : c;
  const std::size_t leader_index = leader == b ? 1 : 2;
  // The new leader itself knows it (another node may have read etcd first).
  ASSERT_TRUE(eventually(
      [&] {
        auto rl = replication(leader, "t");
        return rl && rl->role == "leader" && rl->epoch == 2;
      },
      ms(10000)));
  RawClient producer;
  ASSERT_TRUE(producer.connect(leader->tcp_port()));
  producer.magic();
  producer.pub("t", "majority-side");
  EXPECT_TRUE(got_response(producer, "OK", ms(15000))) << leader->log();
  // By now a's lease has lapsed: it confirms nothing while cut off.
  const std::size_t cut_off = producers.acked();
  EXPECT_FALSE(eventually([&] { return producers.acked() > cut_off; }, ms(2000)))
      << "a acknowledged publishes while cut off\n"
      << a->log();

  ASSERT_TRUE(netns_->heal());
  EXPECT_TRUE(eventually(
      [&] {
        auto ra = a_stats();
        return ra && ra->role == "follower" && ra->epoch >= 2;
      },
      ms(20000)))
      << a->log();
  EXPECT_TRUE(eventually([&] { return producers.acked() >= cut_off + 100; }, ms(20000)))
      << "publishing to a goes on through the new leader";
  const std::vector<std::string> acked = producers.stop();
  expect_held_and_converged(acked, leader, leader_index, dir_.path());
}

}  // namespace
}  // namespace nsq::integration
