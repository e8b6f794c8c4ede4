// The soak's trend criterion on made-up series: a plateau with noise passes,
// a slow steady leak fails, warm-up growth in the first half is ignored.
#include "soak/soak_stats.h"

#include <gtest/gtest.h>

namespace nsq::soak {
namespace {

std::vector<Sample> series(int n, double (*rss_at)(int)) {
  std::vector<Sample> v;
  for (int i = 0; i < n; ++i) {
    Sample s;
    s.t_s = 5.0 * (i + 1);
    s.rss_kib = rss_at(i);
    v.push_back(s);
  }
  return v;
}

double rss_of(const Sample& s) { return s.rss_kib; }

TEST(SoakStats, SlopeOfAStraightLine) {
  EXPECT_DOUBLE_EQ(slope({0, 1, 2, 3}, {1, 3, 5, 7}), 2.0);
  EXPECT_DOUBLE_EQ(slope({1}, {5}), 0.0);
}

TEST(SoakStats, WarmUpThenPlateauWithNoisePasses) {
  auto v = series(24, [](int i) { return i < 8 ? 1000.0 * i : 8000.0 + (i % 2 ? 300 : -300); });
  EXPECT_TRUE(second_half_trend(v, rss_of, 1024).ok());
}

TEST(SoakStats, SteadyLeakInTheSecondHalfFails) {
  auto v = series(24, [](int i) { return 10000.0 + 200.0 * i; });  // 40 KiB/s
  Trend t = second_half_trend(v, rss_of, 1024);
  EXPECT_NEAR(t.growth, 200.0 * 11, 1e-6);
  EXPECT_FALSE(t.ok());
}

}  // namespace
}  // namespace nsq::soak
