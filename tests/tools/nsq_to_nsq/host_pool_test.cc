// The hostpool mode's HostPool and the --status-every report of
// TimerMetrics (tools/common), with time as a parameter.
#include "common/host_pool.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/timer_metrics.h"

namespace nsq::tools {
namespace {

using namespace std::chrono_literals;

TEST(HostPool, TakesHostsInTurnWhileHealthy) {
  HostPool pool({"a", "b", "c"});
  auto now = HostPool::Clock::now();
  EXPECT_EQ(pool.pick(now), 0u);
  EXPECT_EQ(pool.pick(now), 1u);
  EXPECT_EQ(pool.pick(now), 2u);
  EXPECT_EQ(pool.pick(now), 0u);
}

TEST(HostPool, SkipsAFailedHostUntilItsRetryTime) {
  HostPool pool({"a", "b"});
  auto now = HostPool::Clock::now();
  pool.mark(0, false, now);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(pool.pick(now + 1s), 1u);
  // Due again after the initial 30 s rest: offered once more.
  std::set<std::size_t> later;
  for (int i = 0; i < 2; ++i) later.insert(pool.pick(now + 31s));
  EXPECT_EQ(later, (std::set<std::size_t>{0, 1}));
  // A success makes it healthy.
  pool.mark(0, true, now + 31s);
  std::set<std::size_t> healed;
  for (int i = 0; i < 2; ++i) healed.insert(pool.pick(now + 32s));
  EXPECT_EQ(healed, (std::set<std::size_t>{0, 1}));
}

TEST(HostPool, RestDoublesOnRepeatedFailures) {
  HostPool pool({"a", "b"});
  auto now = HostPool::Clock::now();
  pool.mark(0, false, now);        // rests 30 s
  pool.mark(0, false, now + 31s);  // rests 60 s more
  EXPECT_EQ(pool.pick(now + 80s), 1u);
  EXPECT_EQ(pool.pick(now + 80s), 1u);
}

TEST(HostPool, AllResting) {
  HostPool pool({"a", "b"});
  auto now = HostPool::Clock::now();
  pool.mark(0, false, now);
  pool.mark(1, false, now);
  // Every host resting: all are made healthy again rather than refusing work.
  std::set<std::size_t> picked;
  for (int i = 0; i < 2; ++i) picked.insert(pool.pick(now + 1s));
  EXPECT_EQ(picked, (std::set<std::size_t>{0, 1}));
}

TEST(TimerMetrics, ReportFormat) {
  std::vector<TimerMetrics::Clock::duration> timings;
  for (int i = 1; i <= 100; ++i) timings.push_back(std::chrono::microseconds(i * 100));
  EXPECT_EQ(TimerMetrics::format_report("[aggregate]:", timings),
            "[aggregate]: finished 100 - 99th: 9.90ms - 95th: 9.50ms - avg: 5.05ms");
}

}  // namespace
}  // namespace nsq::tools
