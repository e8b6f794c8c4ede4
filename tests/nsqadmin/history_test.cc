// nsqadmin's in-memory history (tools/nsqadmin/history.cc): its row and
// series bounds, the downsampling of older samples, and the JSON the API
// serves. Times are parameters: no clock, no sleeps.
#include "history.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>

#include "history_json.h"

namespace nsq::admin {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

double kNaNForTest() { return std::nan(""); }

HistoryShape shape(milliseconds interval, milliseconds duration, std::size_t max_series = 10) {
  HistoryShape s;
  s.interval = interval;
  s.duration = duration;
  s.max_series = max_series;
  return s;
}

const std::vector<double>& column(const SeriesBuffer::View& v, const std::string& name) {
  for (const auto& [n, values] : v.columns) {
    if (n == name) return values;
  }
  static const std::vector<double> none;
  ADD_FAILURE() << "no column " << name;
  return none;
}

TEST(NsqadminHistory, DefaultShapeCoversAnHourInAtMost240Rows) {
  const HistoryShape s;  // 10s for 1h
  EXPECT_EQ(s.total_samples(), 360u);
  EXPECT_EQ(s.fine_rows(), 120u);    // the last 20 minutes as sampled
  EXPECT_EQ(s.coarse_factor(), 2u);  // then 20 s buckets
  EXPECT_EQ(s.coarse_rows(), 120u);  // for the 40 minutes before
  // A tiny interval over a long duration still holds 2 * kTierRows rows.
  const auto dense = shape(seconds(1), hours(24));
  EXPECT_EQ(dense.fine_rows(), HistoryShape::kTierRows);
  EXPECT_EQ(dense.coarse_rows(), HistoryShape::kTierRows);
  EXPECT_GE(dense.fine_rows() + dense.coarse_rows() * dense.coarse_factor(), dense.total_samples());
  // A duration that fits the fine tier has no buckets.
  const auto short_one = shape(seconds(10), minutes(5));
  EXPECT_EQ(short_one.fine_rows(), 30u);
  EXPECT_EQ(short_one.coarse_rows(), 0u);
}

TEST(NsqadminHistory, FineTierKeepsTheLastSamplesAsTheyAre) {
  SeriesBuffer b(shape(seconds(1), seconds(5)));  // 5 fine rows, no buckets
  for (int i = 0; i < 12; ++i) b.push(1000 * i, {{"depth", static_cast<double>(i)}});
  EXPECT_EQ(b.rows(), 5u);
  const auto v = b.view();
  EXPECT_EQ(v.times, (std::vector<std::int64_t>{7000, 8000, 9000, 10000, 11000}));
  EXPECT_EQ(column(v, "depth"), (std::vector<double>{7, 8, 9, 10, 11}));
}

TEST(NsqadminHistory, OlderSamplesAreAveragedIntoBucketsAndTheOldestDropped) {
  // 130 samples of 1 s: 120 fine rows, then 10 more in buckets of 2 (5 rows).
  const auto s = shape(seconds(1), seconds(130));
  ASSERT_EQ(s.fine_rows(), 120u);
  ASSERT_EQ(s.coarse_factor(), 2u);
  ASSERT_EQ(s.coarse_rows(), 5u);
  SeriesBuffer b(s);
  const int pushed = 1000;
  for (int i = 0; i < pushed; ++i) b.push(1000LL * i, {{"rate", static_cast<double>(i)}});
  EXPECT_EQ(b.rows(), 125u);  // never more than the shape allows
  const auto v = b.view();
  ASSERT_EQ(v.times.size(), 125u);
  // Newest 120 as sampled.
  EXPECT_EQ(v.times.back(), 1000LL * (pushed - 1));
  EXPECT_EQ(column(v, "rate").back(), pushed - 1);
  EXPECT_EQ(v.times[5], 1000LL * (pushed - 120));
  // Before them, 5 buckets of 2: time of the first sample, mean of both.
  for (int r = 0; r < 5; ++r) {
    const int first = pushed - 120 - 10 + 2 * r;
    EXPECT_EQ(v.times[r], 1000LL * first) << r;
    EXPECT_DOUBLE_EQ(column(v, "rate")[r], first + 0.5) << r;
  }
  // The history reaches back about the duration.
  EXPECT_GE(v.times.back() - v.times.front(), 129'000);
  EXPECT_LE(v.times.back() - v.times.front(), 130'000);
}

TEST(NsqadminHistory, PartlyFilledBucketShowsItsMeanSoFar) {
  // 3 fine rows, then buckets of 2.
  HistoryShape s = shape(seconds(1), seconds(3));
  SeriesBuffer fine_only(s);
  for (int i = 0; i < 4; ++i) fine_only.push(i, {{"x", 1.0}});
  EXPECT_EQ(fine_only.rows(), 3u);  // no buckets for this duration

  s = shape(seconds(1), seconds(1000));  // 120 fine, factor 8
  ASSERT_EQ(s.coarse_factor(), 8u);
  SeriesBuffer b(s);
  for (int i = 0; i < 123; ++i) b.push(i, {{"x", static_cast<double>(i)}});
  const auto v = b.view();
  ASSERT_EQ(v.times.size(), 121u);  // the bucket with samples 0..2, then 120 rows
  EXPECT_EQ(v.times[0], 0);
  EXPECT_DOUBLE_EQ(column(v, "x")[0], 1.0);  // mean of 0, 1, 2
  EXPECT_EQ(v.times[1], 3);
}

TEST(NsqadminHistory, ColumnsAppearingLaterAndGapsAreNaNAndBucketsSkipThem) {
  SeriesBuffer b(shape(seconds(1), seconds(122)));  // 120 fine, buckets of 2
  b.push(0, {{"rate", kNaNForTest()}, {"depth", 1}});
  b.push(1, {{"rate", 4}, {"depth", 3}});
  b.push(2, {{"depth", 5}, {"e2e_p99", 7}});
  auto v = b.view();
  EXPECT_TRUE(std::isnan(column(v, "rate")[0]));
  EXPECT_TRUE(std::isnan(column(v, "rate")[2]));  // not reported in that sample
  EXPECT_TRUE(std::isnan(column(v, "e2e_p99")[0]));
  EXPECT_EQ(column(v, "e2e_p99")[2], 7);
  for (int i = 3; i < 122; ++i) b.push(i, {{"depth", 0}});
  v = b.view();  // samples 0 and 1 now form one bucket
  EXPECT_EQ(v.times[0], 0);
  EXPECT_EQ(column(v, "rate")[0], 4);                // the mean of the known values only
  EXPECT_EQ(column(v, "depth")[0], 2);               // (1 + 3) / 2
  EXPECT_TRUE(std::isnan(column(v, "e2e_p99")[0]));  // none in the bucket
}

TEST(NsqadminHistory, StoreBoundsItsSeriesAndForgetsTheGoneOnes) {
  History h(shape(seconds(1), seconds(10), /*max_series=*/3));
  const History::Key t1{History::Kind::topic, "t1", ""};
  const History::Key c1{History::Kind::channel, "t1", "c1"};
  const History::Key n1{History::Kind::node, "127.0.0.1:4151", ""};
  const History::Key t2{History::Kind::topic, "t2", ""};
  EXPECT_TRUE(h.record(t1, 1000, {{"rate", 1}}));
  EXPECT_TRUE(h.record(c1, 1000, {{"rate", 1}}));
  EXPECT_TRUE(h.record(n1, 1000, {{"clients", 1}}));
  // Full: a new series is refused, the known ones keep recording.
  EXPECT_FALSE(h.record(t2, 1000, {{"rate", 1}}));
  EXPECT_TRUE(h.record(t1, 2000, {{"rate", 2}}));
  EXPECT_EQ(h.series(), 3u);
  EXPECT_FALSE(h.get(t2));
  // A topic and channel and a node not seen since 1000 are forgotten.
  EXPECT_TRUE(h.record(n1, 2000, {{"clients", 1}}));
  h.forget_before(1500);
  EXPECT_EQ(h.series(), 2u);
  EXPECT_FALSE(h.get(c1));
  ASSERT_TRUE(h.get(t1));
  EXPECT_EQ(h.get(t1)->times, (std::vector<std::int64_t>{1000, 2000}));
  // The room they left takes a new series.
  EXPECT_TRUE(h.record(t2, 3000, {{"rate", 1}}));
  // Kinds do not collide: a topic and a node of the same name are two series.
  EXPECT_FALSE(h.get(History::Key{History::Kind::node, "t1", ""}));
}

TEST(NsqadminHistory, JsonHasOneValuePerTimeAndNullForUnknown) {
  SeriesBuffer b(shape(seconds(10), hours(1)));
  b.push(1000, {{"rate", kNaNForTest()}, {"depth", 3}});
  b.push(11000, {{"rate", 2.5}, {"depth", 4}});
  EXPECT_EQ(history_json(shape(seconds(10), hours(1)), b.view()),
            R"({"interval_ms":10000,"duration_ms":3600000,"time":[1000,11000],)"
            R"("series":{"rate":[null,2.5],"depth":[3,4]},"message":""})");
}

}  // namespace
}  // namespace nsq::admin
