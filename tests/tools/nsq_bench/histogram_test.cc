#include "histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace nsq::bench {
namespace {

using H = LatencyHistogram;

TEST(LatencyHistogram, EmptyReportsZero) {
  H h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(50), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  H h;
  for (uint64_t v = 1; v <= 100; ++v) h.record(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.percentile(50), 50u);
  EXPECT_EQ(h.percentile(90), 90u);
  EXPECT_EQ(h.percentile(99), 99u);
  EXPECT_EQ(h.percentile(99.9), 100u);
  EXPECT_EQ(h.percentile(100), 100u);
  EXPECT_EQ(h.percentile(0), 1u);  // rank clamps to the first sample
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

TEST(LatencyHistogram, BucketsTileTheRangeWithoutGaps) {
  EXPECT_EQ(H::bucket_lower(0), 0u);
  for (std::size_t i = 0; i + 1 < H::kBucketCount; ++i) {
    ASSERT_LE(H::bucket_lower(i), H::bucket_upper(i)) << i;
    ASSERT_EQ(H::bucket_upper(i) + 1, H::bucket_lower(i + 1)) << i;
    ASSERT_EQ(H::bucket_index(H::bucket_lower(i)), i) << i;
    ASSERT_EQ(H::bucket_index(H::bucket_upper(i)), i) << i;
  }
  EXPECT_EQ(H::bucket_upper(H::kBucketCount - 1), UINT64_MAX);
  EXPECT_EQ(H::bucket_index(UINT64_MAX), H::kBucketCount - 1);
}

TEST(LatencyHistogram, BucketWidthIsWithinOnePartIn128) {
  for (std::size_t i = H::kExactLimit; i < H::kBucketCount; ++i) {
    const double lower = static_cast<double>(H::bucket_lower(i));
    const double width = static_cast<double>(H::bucket_upper(i)) - lower + 1;
    ASSERT_LE(width / lower, 1.0 / 128 + 1e-12) << i;
  }
}

TEST(LatencyHistogram, PercentilesOfAUniformSpreadAreWithinOnePercent) {
  H h;
  for (uint64_t v = 1; v <= 1'000'000; ++v) h.record(v * 1000);  // 1 us .. 1 s in ns
  const auto near = [](uint64_t got, double want) {
    return std::abs(static_cast<double>(got) - want) / want < 0.01;
  };
  EXPECT_TRUE(near(h.percentile(50), 500'000'000.0)) << h.percentile(50);
  EXPECT_TRUE(near(h.percentile(90), 900'000'000.0)) << h.percentile(90);
  EXPECT_TRUE(near(h.percentile(99), 990'000'000.0)) << h.percentile(99);
  EXPECT_TRUE(near(h.percentile(99.9), 999'000'000.0)) << h.percentile(99.9);
  EXPECT_EQ(h.percentile(100), 1'000'000'000u);
  EXPECT_EQ(h.max(), 1'000'000'000u);
  // Reported values are bucket upper edges: never below the true rank value.
  EXPECT_GE(h.percentile(50), 500'000'000u);
}

TEST(LatencyHistogram, ASingleSampleIsReportedExactly) {
  H h;
  h.record(1'000'003);  // its bucket's edges are further away than min/max
  EXPECT_EQ(h.percentile(50), 1'000'003u);
  EXPECT_EQ(h.percentile(99.9), 1'000'003u);
}

TEST(LatencyHistogram, TailIsSeparatedFromBody) {
  H h;
  for (int i = 0; i < 999; ++i) h.record(100'000);  // 100 us
  h.record(50'000'000);                             // one 50 ms outlier
  EXPECT_LT(h.percentile(99.9), 101'000u);
  EXPECT_EQ(h.percentile(100), 50'000'000u);
  EXPECT_EQ(h.max(), 50'000'000u);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(12.0, 1.5);
  H a;
  H b;
  H all;
  for (int i = 0; i < 20000; ++i) {
    const auto v = static_cast<uint64_t>(dist(rng));
    (i % 3 == 0 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_NEAR(a.mean(), all.mean(), all.mean() * 1e-9);
  for (const double p : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99})
    EXPECT_EQ(a.percentile(p), all.percentile(p)) << p;
}

TEST(LatencyHistogram, MergeIntoEmpty) {
  H empty;
  H b;
  b.record(7);
  b.record(7000);
  empty.merge(b);
  EXPECT_EQ(empty.count(), 2u);
  EXPECT_EQ(empty.min(), 7u);
  EXPECT_EQ(empty.max(), 7000u);
}

}  // namespace
}  // namespace nsq::bench
