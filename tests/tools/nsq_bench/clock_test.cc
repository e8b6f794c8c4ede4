#include "clock.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace nsq::bench {
namespace {

using namespace std::chrono_literals;

TEST(Pacer, DueTimesFollowTheCountNotTheClock) {
  const SteadyClock::time_point start{};
  const Pacer pacer(1000.0, start);
  EXPECT_TRUE(pacer.paced());
  EXPECT_EQ(pacer.due(0), start);
  EXPECT_EQ(pacer.due(1), start + 1ms);
  EXPECT_EQ(pacer.due(200), start + 200ms);
  EXPECT_EQ(pacer.due(5000), start + 5s);
}

TEST(Pacer, FractionalRates) {
  const SteadyClock::time_point start{};
  const Pacer pacer(2.5, start);
  EXPECT_EQ(pacer.due(1), start + 400ms);
  EXPECT_EQ(pacer.due(5), start + 2s);
}

TEST(Pacer, ZeroRateMeansEverythingIsDueNow) {
  const SteadyClock::time_point start = SteadyClock::now();
  const Pacer pacer(0, start);
  EXPECT_FALSE(pacer.paced());
  EXPECT_EQ(pacer.due(1'000'000), start);
}

TEST(RealtimeNs, IsUnixNanoseconds) {
  const int64_t now = realtime_ns();
  const int64_t sys = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  EXPECT_LT(std::abs(sys - now), int64_t{1'000'000'000});
}

}  // namespace
}  // namespace nsq::bench
