#include "stats/quantile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>

namespace nsq::nsqd {
namespace {

using Clock = LatencyStream::Clock;
using namespace std::chrono_literals;

const Clock::time_point kT0{std::chrono::hours(1000)};

double value_at(const stats::Latency& l, double q) {
  for (const auto& [qq, v] : l.percentiles) {
    if (qq == q) return v;
  }
  ADD_FAILURE() << "no quantile " << q;
  return -1;
}

TEST(LatencyBuckets, GeometryIsContinuousAndBounded) {
  EXPECT_EQ(LatencyStream::bucket_of(0), 0u);
  EXPECT_EQ(LatencyStream::bucket_of(63), 63u);
  EXPECT_EQ(LatencyStream::bucket_of(64), 64u);
  EXPECT_EQ(LatencyStream::bucket_of(127), 127u);
  EXPECT_EQ(LatencyStream::bucket_of(128), 128u);
  EXPECT_EQ(LatencyStream::bucket_of(129), 128u);
  EXPECT_EQ(LatencyStream::bucket_of(~std::uint64_t{0}), LatencyStream::kBuckets - 1);
  EXPECT_EQ(LatencyStream::bucket_of(std::uint64_t{1} << 63), LatencyStream::kBuckets - 1);
  // Exact below 128.
  for (std::uint64_t v = 0; v < 128; ++v) {
    EXPECT_EQ(LatencyStream::bucket_value(LatencyStream::bucket_of(v)), v);
  }
  // Monotonic, and every value within 0.8% of its bucket's representative.
  std::mt19937_64 rng(42);
  std::uint32_t prev = 0;
  for (int e = 7; e < 63; ++e) {
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t v = (std::uint64_t{1} << e) + (rng() % (std::uint64_t{1} << e));
      const std::uint32_t b = LatencyStream::bucket_of(v);
      ASSERT_LT(b, LatencyStream::kBuckets);
      const double rep = static_cast<double>(LatencyStream::bucket_value(b));
      ASSERT_LE(std::fabs(rep - static_cast<double>(v)) / static_cast<double>(v), 0.008) << v;
      ASSERT_EQ(LatencyStream::bucket_of(LatencyStream::bucket_value(b)), b);
    }
    const std::uint32_t first = LatencyStream::bucket_of(std::uint64_t{1} << e);
    EXPECT_GT(first, prev);
    prev = first;
  }
}

TEST(LatencyStream, EmptyStreamReportsZeros) {
  LatencyStream s({0.99, 0.5}, 10min, kT0);
  const auto l = s.snapshot(kT0);
  EXPECT_TRUE(l.configured);
  EXPECT_EQ(l.count, 0u);
  ASSERT_EQ(l.percentiles.size(), 2u);
  EXPECT_EQ(l.percentiles[0], (std::pair<double, double>{0.99, 0.0}));
  EXPECT_EQ(l.percentiles[1], (std::pair<double, double>{0.5, 0.0}));
}

TEST(LatencyStream, SingleSampleIsExact) {
  LatencyStream s({1.0, 0.5}, 10min, kT0);
  s.record(123456789, kT0 + 1s);
  const auto l = s.snapshot(kT0 + 2s);
  EXPECT_EQ(l.count, 1u);
  EXPECT_EQ(value_at(l, 1.0), 123456789.0);
  EXPECT_EQ(value_at(l, 0.5), 123456789.0);
}

TEST(LatencyStream, NegativeLatencyCountsAsZero) {
  LatencyStream s({1.0}, 10min, kT0);
  s.record(-5, kT0);
  EXPECT_EQ(value_at(s.snapshot(kT0), 1.0), 0.0);
}

TEST(LatencyStream, QuantilesWithinOnePercent) {
  LatencyStream s({1.0, 0.99, 0.95, 0.5, 0.01}, 10min, kT0);
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(std::log(5e6), 1.0);  // ~5 ms median
  std::vector<std::int64_t> values;
  for (int i = 0; i < 100000; ++i) {
    values.push_back(static_cast<std::int64_t>(dist(rng)));
    s.record(values.back(), kT0 + 1s);
  }
  std::sort(values.begin(), values.end());
  const auto l = s.snapshot(kT0 + 1s);
  EXPECT_EQ(l.count, values.size());
  for (const double q : {1.0, 0.99, 0.95, 0.5, 0.01}) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    const double exact = static_cast<double>(values[rank - 1]);
    EXPECT_NEAR(value_at(l, q), exact, exact * 0.01) << "q=" << q;
  }
  EXPECT_EQ(value_at(l, 1.0), static_cast<double>(values.back()));  // max is exact
  // Memory is bounded by the bucket count whatever the number of samples.
  EXPECT_LE(s.allocated_buckets(), 2 * static_cast<std::size_t>(LatencyStream::kBuckets));
}

TEST(LatencyStream, MemoryDoesNotGrowWithMessageCount) {
  LatencyStream s({0.99}, 10min, kT0);
  for (int i = 0; i < 10000; ++i) s.record(1000000 + i % 1000, kT0);
  const auto after_10k = s.allocated_buckets();
  for (int i = 0; i < 1000000; ++i) s.record(1000000 + i % 1000, kT0);
  EXPECT_EQ(s.allocated_buckets(), after_10k);
  EXPECT_LT(after_10k, 16u);  // 1.000-1.001 ms spans few buckets
  // The widest possible range stays within the fixed bucket count.
  s.record(0, kT0);
  s.record(std::numeric_limits<std::int64_t>::max(), kT0);
  EXPECT_EQ(s.allocated_buckets(), LatencyStream::kBuckets);
}

TEST(LatencyStream, TwoHalfWindowsRollOver) {
  // Window 10 s: half windows of 5 s starting at kT0.
  LatencyStream s({1.0}, 10s, kT0);
  s.record(100, kT0 + 1s);                    // window A
  EXPECT_EQ(s.snapshot(kT0 + 5s).count, 1u);  // the boundary itself is not stale (Go's After)
  s.record(200, kT0 + 6s);                    // moves: B current, A kept
  auto l = s.snapshot(kT0 + 6s);
  EXPECT_EQ(l.count, 2u);
  EXPECT_EQ(value_at(l, 1.0), 200.0);
  // At 10 s+ε A is dropped (without a record: snapshot is read-only).
  l = s.snapshot(kT0 + 10s + 1ns);
  EXPECT_EQ(l.count, 1u);
  EXPECT_EQ(value_at(l, 1.0), 200.0);
  // A query does not change the state: the same answer again earlier.
  EXPECT_EQ(s.snapshot(kT0 + 9s).count, 2u);
  s.record(50, kT0 + 11s);  // A emptied and current
  l = s.snapshot(kT0 + 11s);
  EXPECT_EQ(l.count, 2u);
  EXPECT_EQ(value_at(l, 1.0), 200.0);
  // After 15 s+ε B is gone.
  l = s.snapshot(kT0 + 15s + 1ns);
  EXPECT_EQ(l.count, 1u);
  EXPECT_EQ(value_at(l, 1.0), 50.0);
  // Idle for a long time: everything expires, the grid of half windows stays.
  EXPECT_EQ(s.snapshot(kT0 + 20s + 1ns).count, 0u);
  s.record(7, kT0 + 1000s + 1ns);  // window [1000 s, 1005 s)
  s.record(8, kT0 + 1005s);
  EXPECT_EQ(s.snapshot(kT0 + 1005s).count, 2u);
  s.record(9, kT0 + 1005s + 1ns);  // next half window
  EXPECT_EQ(s.snapshot(kT0 + 1005s + 1ns).count, 3u);
  EXPECT_EQ(s.snapshot(kT0 + 1010s + 1ns).count, 1u);
}

TEST(LatencyStream, MergeOfChannels) {
  LatencyStream a({1.0, 0.5}, 10s, kT0);
  LatencyStream b({1.0, 0.5}, 10s, kT0 + 2s);
  for (int i = 1; i <= 3; ++i) a.record(i * 10, kT0 + 1s);
  for (int i = 4; i <= 6; ++i) b.record(i * 10, kT0 + 3s);
  const LatencyStream* streams[] = {&a, nullptr, &b};
  auto l = LatencyStream::merge(streams, kT0 + 4s);
  EXPECT_TRUE(l.configured);
  EXPECT_EQ(l.count, 6u);
  EXPECT_EQ(value_at(l, 1.0), 60.0);
  EXPECT_EQ(value_at(l, 0.5), 30.0);
  // Each stream expires on its own schedule: a's data is gone after 10 s.
  l = LatencyStream::merge(streams, kT0 + 10s + 1ns);
  EXPECT_EQ(l.count, 3u);
  EXPECT_EQ(value_at(l, 0.5), 50.0);
  // No streams: Go's empty Result.
  const auto none = LatencyStream::merge({}, kT0);
  EXPECT_FALSE(none.configured);
  EXPECT_EQ(none.count, 0u);
  EXPECT_TRUE(none.percentiles.empty());
}

TEST(LatencyStream, ConcurrentRecordAndSnapshot) {
  LatencyStream s({0.99}, 10min);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&s] {
      for (int i = 0; i < 20000; ++i) s.record(i, Clock::now());
    });
  }
  for (int i = 0; i < 100; ++i) (void)s.snapshot(Clock::now());
  for (auto& t : threads) t.join();
  EXPECT_EQ(s.snapshot(Clock::now()).count, 80000u);
}

}  // namespace
}  // namespace nsq::nsqd
