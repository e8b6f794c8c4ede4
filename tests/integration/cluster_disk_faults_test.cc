// Cluster mode on a failing disk (docs/replication.md, "Failures"): fsyncs
// that fail while writes succeed (LD_PRELOAD of failing_fsync.cc). A
// follower must leave the in-sync set, so that publishes go on being
// acknowledged by the others instead of waiting for confirmations it cannot
// give; a leader must hand the topic to a follower. Once their fsyncs work
// again they cut their logs back to what they had fsynced, catch up and
// rejoin. Not in the sanitizer trees: their runtimes must come first in the
// library list, before any LD_PRELOAD.

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

// A script that runs nsqd with fsync() and fdatasync() failing while `flag`
// exists.
std::string failing_fsync_nsqd(const std::filesystem::path& dir,
                               const std::filesystem::path& flag) {
  const auto wrapper = dir / "failing-fsync.sh";
  std::ofstream(wrapper) << "#!/bin/sh\nLD_PRELOAD=" << NSQ_FAILING_FSYNC_LIBRARY
                         << " NSQ_FAIL_FSYNC_WHILE=" << flag.string() << " exec "
                         << testutil::nsqd_binary_path() << " \"$@\"\n";
  ::chmod(wrapper.c_str(), 0755);
  return wrapper.string();
}

TEST_F(ReplicationTest, AFollowerWhoseFsyncsFailLeavesTheInSyncSetAndRejoinsWhenTheyWork) {
  lease_ttl_s_ = 2;
  const auto flag = dir_.path() / "fsync-fails";
  auto* a = start_node();
  auto* b = start_node();
  auto* c = start_node({}, failing_fsync_nsqd(dir_.path(), flag));
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  ASSERT_TRUE(await_epoch(c, "t", 1, kReply));
  ASSERT_TRUE(eventually(
      [&] {
        auto r = replication(a, "t");
        return r && r->role == "leader" && r->isr.size() == 3;
      },
      ms(10000)));

  Producers producers({a->tcp_port()}, 3, {}, 20);
  ASSERT_TRUE(eventually([&] { return producers.acked() >= 100; }, ms(20000)));
  std::ofstream(flag).put('x');

  // c cannot confirm: within its lag allowance (the lease) it leaves the
  // in-sync set, and publishes are acknowledged again without it.
  EXPECT_TRUE(eventually(
      [&] {
        auto r = replication(a, "t");
        return r && r->isr.size() == 2 &&
               std::find(r->isr.begin(), r->isr.end(), id(c)) == r->isr.end();
      },
      ms(10000)))
      << c->log();
  const std::size_t without_c = producers.acked();
  EXPECT_TRUE(eventually([&] { return producers.acked() >= without_c + 100; }, ms(10000)))
      << "publishes acknowledged without the failing follower";
  EXPECT_NE(c->log().find("cannot fsync the replica log"), std::string::npos) << c->log();

  std::filesystem::remove(flag);
  EXPECT_TRUE(eventually(
      [&] {
        auto r = replication(a, "t");
        return r && r->isr.size() == 3;
      },
      ms(20000)))
      << c->log();
  EXPECT_NE(c->log().find("replica log cut back to"), std::string::npos) << c->log();
  const std::vector<std::string> acked = producers.stop();
  EXPECT_TRUE(eventually(
      [&] {
        auto r = replication(a, "t");
        return r && r->lag.count(id(c)) && r->lag.at(id(c)) == 0;
      },
      ms(10000)));
  EXPECT_EQ(not_once_in_log(dir_.path() / "node2", "t", acked), 0u)
      << "c's log holds every acknowledged message once, of " << acked.size();
}

// A leader whose fsyncs fail cannot commit: it hands the topic to an
// in-sync follower (leaving the in-sync set and the leader key in etcd), so
// publishing goes on, forwarded by it; once its fsyncs work it follows,
// catches up and rejoins.
TEST_F(ReplicationTest, ALeaderWhoseFsyncsFailHandsTheTopicOverAndRejoinsWhenTheyWork) {
  lease_ttl_s_ = 2;
  const auto flag = dir_.path() / "fsync-fails";
  auto* a = start_node({}, failing_fsync_nsqd(dir_.path(), flag));
  auto* b = start_node();
  auto* c = start_node();
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  ASSERT_TRUE(await_epoch(c, "t", 1, kReply));

  Producers producers({a->tcp_port(), b->tcp_port(), c->tcp_port()}, 3, {}, 20);
  ASSERT_TRUE(eventually([&] { return producers.acked() >= 100; }, ms(20000)));
  std::ofstream(flag).put('x');

  auto r = await_epoch(b, "t", 2, ms(10000));
  ASSERT_TRUE(r && r->epoch == 2) << a->log();
  EXPECT_NE(r->leader, id(a));
  NsqdProcess* leader = r->leader == id(b) ? b : c;
  const std::size_t leader_index = leader == b ? 1 : 2;
  EXPECT_NE(a->log().find("its fsyncs fail here"), std::string::npos) << a->log();
  const std::size_t handed = producers.acked();
  EXPECT_TRUE(eventually([&] { return producers.acked() >= handed + 100; }, ms(10000)))
      << "publishes acknowledged by the new leader";

  std::filesystem::remove(flag);
  EXPECT_TRUE(eventually(
      [&] {
        auto rl = replication(leader, "t");
        return rl && rl->isr.size() == 3;
      },
      ms(20000)))
      << a->log();
  const std::vector<std::string> acked = producers.stop();
  EXPECT_EQ(not_once_in_log(dir_.path() / ("node" + std::to_string(leader_index)), "t", acked), 0u)
      << "of " << acked.size() << " acknowledged";
}

}  // namespace
}  // namespace nsq::integration
