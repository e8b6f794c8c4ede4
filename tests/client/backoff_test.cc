#include "backoff.h"

#include <gtest/gtest.h>

namespace nsq::client {
namespace {

using namespace std::chrono_literals;

TEST(ClientBackoff, ExponentialDoublesUpToMax) {
  Config c;  // multiplier 1s, max 2m
  std::mt19937_64 rng(1);
  EXPECT_EQ(backoff_duration(c, 1, rng), 2s);
  EXPECT_EQ(backoff_duration(c, 3, rng), 8s);
  EXPECT_EQ(backoff_duration(c, 6, rng), 64s);
  EXPECT_EQ(backoff_duration(c, 7, rng), 120s);
  EXPECT_EQ(backoff_duration(c, 200, rng), 120s) << "no overflow at high levels";
}

TEST(ClientBackoff, LevelRisesOnlyWhileNextStepFits) {
  Config c;
  EXPECT_TRUE(can_raise_backoff(c, 0));   // 2s
  EXPECT_TRUE(can_raise_backoff(c, 5));   // 64s
  EXPECT_FALSE(can_raise_backoff(c, 6));  // 128s > 2m
  c.max_backoff_duration = 0s;
  EXPECT_FALSE(can_raise_backoff(c, 0)) << "max 0 disables backoff";
}

TEST(ClientBackoff, FullJitterStaysBelowTheExponentialValue) {
  Config c;
  c.backoff_strategy = BackoffStrategy::full_jitter;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    auto d = backoff_duration(c, 3, rng);
    EXPECT_GE(d, 0s);
    EXPECT_LT(d, 8s);
  }
}

TEST(ClientBackoff, RequeueDelayScalesWithAttemptsAndCaps) {
  Config c;  // default 90s, max 15m
  EXPECT_EQ(requeue_delay(c, -1ms, 1), 90s);
  EXPECT_EQ(requeue_delay(c, -1ms, 3), 270s);
  EXPECT_EQ(requeue_delay(c, -1ms, 100), 15min);
  EXPECT_EQ(requeue_delay(c, 250ms, 100), 250ms) << "an explicit delay is sent as given";
  EXPECT_EQ(requeue_delay(c, 0ms, 3), 0ms);
}

TEST(ClientBackoff, PerConnectionRdy) {
  EXPECT_EQ(per_connection_rdy(200, 0), 200);
  EXPECT_EQ(per_connection_rdy(200, 1), 200);
  EXPECT_EQ(per_connection_rdy(200, 3), 66);
  EXPECT_EQ(per_connection_rdy(2, 5), 1);
  EXPECT_EQ(per_connection_rdy(0, 5), 0);
}

}  // namespace
}  // namespace nsq::client
