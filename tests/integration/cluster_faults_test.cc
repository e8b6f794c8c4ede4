// Cluster mode under faults (docs/replication.md, "Failures"): a leader
// frozen past its lease while producers keep publishing to it. Whatever it
// answered OK is in the new leader's log; once it runs again it follows, and
// its log converges to the leader's.

#include <signal.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "integration/replication_fixture.h"

namespace nsq::integration {
namespace {

// Producers publishing to one node until stopped; every OK is recorded.
class Producers {
 public:
  Producers(int port, int count) {
    for (int p = 0; p < count; ++p) {
      threads_.emplace_back([this, port, p] {
        // As a client library does: E_PUB_FAILED closes the connection, the
        // producer connects again and goes on.
        RawClient client;
        for (int i = 0; go_; ++i) {
          if (!client.connected()) {
            if (!client.connect(port)) return;
            client.magic();
          }
          const std::string body = "p" + std::to_string(p) + "-m" + std::to_string(i) + ".";
          auto reply = client.pub("t", body) ? client.read_skip_heartbeats(ms(15000))
                                             : RawClient::ReadResult{};
          if (is_response(reply, "OK")) {
            std::lock_guard lock(mu_);
            acked_.push_back(body);
          } else {
            client.close();
          }
        }
      });
    }
  }
  ~Producers() { stop(); }

  std::size_t acked() const {
    std::lock_guard lock(mu_);
    return acked_.size();
  }
  std::vector<std::string> stop() {
    go_ = false;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
    std::lock_guard lock(mu_);
    return acked_;
  }

 private:
  std::atomic<bool> go_{true};
  mutable std::mutex mu_;
  std::vector<std::string> acked_;
  std::vector<std::thread> threads_;
};

TEST_F(ReplicationTest, AFrozenLeaderAcknowledgesNothingItCouldLoseAndFollowsWhenItWakes) {
  lease_ttl_s_ = 2;
  auto* a = start_node();
  auto* b = start_node();
  auto* c = start_node();
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(http(a, "POST", "/topic/create?topic=t"));
  ASSERT_TRUE(await_epoch(b, "t", 1, kReply));
  ASSERT_TRUE(await_epoch(c, "t", 1, kReply));

  Producers producers(a->tcp_port(), 3);
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

  std::size_t lost = 0;
  for (const auto& body : acked) {
    if (count_in_log(dir_.path() / ("node" + std::to_string(leader_index)), "t", body) != 1) {
      ++lost;
    }
  }
  EXPECT_EQ(lost, 0u) << "of " << acked.size() << " acknowledged";

  // a catches up and is in sync again, holding every acknowledged message.
  EXPECT_TRUE(eventually(
      [&] {
        auto rl = replication(leader, "t");
        return rl && rl->isr.size() == 3;
      },
      ms(20000)));
  std::size_t missing_on_a = 0;
  for (const auto& body : acked) {
    if (count_in_log(dir_.path() / "node0", "t", body) != 1) ++missing_on_a;
  }
  EXPECT_EQ(missing_on_a, 0u) << "a's log converged to the leader's";
}

}  // namespace
}  // namespace nsq::integration
