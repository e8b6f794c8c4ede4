#include "report.h"

#include <gtest/gtest.h>

namespace nsq::bench {
namespace {

TEST(RoleSummary, Rates) {
  RoleSummary s{.connections = 1, .messages = 1000, .body_bytes = 1000 * 100, .secs = 2.0};
  EXPECT_DOUBLE_EQ(s.messages_per_sec(), 500.0);
  EXPECT_DOUBLE_EQ(s.mb_per_sec(), 100000.0 / kMiB / 2.0);
  s.secs = 0;
  EXPECT_EQ(s.messages_per_sec(), 0.0);
  EXPECT_EQ(s.mb_per_sec(), 0.0);
}

TEST(Report, RoleLine) {
  const RoleSummary s{
      .connections = 2, .messages = 2097152, .body_bytes = 2097152ull * 100, .secs = 4.0};
  EXPECT_EQ(role_line("writer", s),
            "writer: 2 connections, 2097152 msgs in 4.000s: 524288 msgs/s, 50.00 MB/s");
  const RoleSummary one{.connections = 1, .messages = 0, .body_bytes = 0, .secs = 0};
  EXPECT_EQ(role_line("reader", one),
            "reader: 1 connection, 0 msgs in 0.000s: 0 msgs/s, 0.00 MB/s");
}

TEST(Report, FormatUs) {
  EXPECT_EQ(format_us(0), "0.0");
  EXPECT_EQ(format_us(1234), "1.2");
  EXPECT_EQ(format_us(1'500'000), "1500.0");
}

TEST(Report, PercentileLine) {
  LatencyHistogram h;
  // Reported percentiles are bucket upper edges (50000 -> 50175), max is exact.
  for (int i = 1; i <= 100; ++i) h.record(static_cast<uint64_t>(i) * 1000);
  EXPECT_EQ(percentile_line("lat", h),
            "lat (n=100): p50=50.2us p90=90.1us p99=99.3us p99.9=100.0us max=100.0us");
}

TEST(Report, ProgressLine) {
  EXPECT_EQ(progress_line(3, 1.0, 1048576, 0, 100, true, false),
            "[  3s] pub 1048576 msgs/s 100.00 MB/s");
  EXPECT_EQ(progress_line(12, 2.0, 200, 100, 1048576, true, true),
            "[ 12s] pub 100 msgs/s 100.00 MB/s | sub 50 msgs/s 50.00 MB/s");
  EXPECT_EQ(progress_line(1, 1.0, 0, 7, 1, false, true), "[  1s] sub 7 msgs/s 0.00 MB/s");
}

TEST(ResultLine, WriterModeShape) {
  const RoleSummary s{.connections = 1, .messages = 1000, .body_bytes = 100000, .secs = 2.0};
  LatencyHistogram h;
  h.record(10'000);
  ResultLine r("writer");
  r.add_role("", s).add_percentiles("rtt_", h);
  EXPECT_EQ(r.str(),
            "RESULT mode=writer msgs=1000 secs=2.000 msgs_per_sec=500 mb_per_sec=0.05 "
            "rtt_p50_us=10.0 rtt_p90_us=10.0 rtt_p99_us=10.0 rtt_p999_us=10.0 rtt_max_us=10.0");
}

TEST(ResultLine, EmptyHistogramAddsNothing) {
  ResultLine r("reader");
  r.add_percentiles("", LatencyHistogram{}).add("x", uint64_t{1}).add("y", 0.25, 2).add("z", "s");
  EXPECT_EQ(r.str(), "RESULT mode=reader x=1 y=0.25 z=s");
}

TEST(ResultLine, PrefixedRole) {
  ResultLine r("both");
  r.add_role("read_", RoleSummary{.connections = 1, .messages = 3, .body_bytes = 3, .secs = 1.0});
  EXPECT_EQ(
      r.str(),
      "RESULT mode=both read_msgs=3 read_secs=1.000 read_msgs_per_sec=3 read_mb_per_sec=0.00");
}

}  // namespace
}  // namespace nsq::bench
