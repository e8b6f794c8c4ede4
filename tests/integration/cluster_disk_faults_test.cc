// Cluster mode on a failing disk (docs/replication.md, "Failures"): a
// follower whose fsyncs fail while its writes succeed (LD_PRELOAD of
// failing_fsync.cc) must leave the in-sync set, so that publishes go on
// being acknowledged by the others instead of waiting for confirmations it
// cannot give; once its fsyncs work again it cuts its log back to what it
// had fsynced, catches up and rejoins. Not in the sanitizer trees: their
// runtimes must come first in the library list, before any LD_PRELOAD.

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

TEST_F(ReplicationTest, AFollowerWhoseFsyncsFailLeavesTheInSyncSetAndRejoinsWhenTheyWork) {
  lease_ttl_s_ = 2;
  const auto flag = dir_.path() / "fsync-fails";
  const auto wrapper = dir_.path() / "failing-fsync.sh";
  std::ofstream(wrapper) << "#!/bin/sh\nLD_PRELOAD=" << NSQ_FAILING_FSYNC_LIBRARY
                         << " NSQ_FAIL_FSYNC_WHILE=" << flag.string() << " exec "
                         << testutil::nsqd_binary_path() << " \"$@\"\n";
  ::chmod(wrapper.c_str(), 0755);
  auto* a = start_node();
  auto* b = start_node();
  auto* c = start_node({}, wrapper.string());
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

}  // namespace
}  // namespace nsq::integration
