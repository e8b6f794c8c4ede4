#include "report_format.h"

#include <gtest/gtest.h>

namespace nsq::stat {
namespace {

TEST(ReportFormat, HeaderLinesAreGoText) {
  EXPECT_EQ(header_lines(),
            "------rate------+----------------depth----------------+--------------metadata------"
            "---------\n"
            "ingress  egress |   total     mem    disk inflt   def |     req     t-o         msgs "
            "clients\n");
}

TEST(ReportFormat, RowColumnsAndRates) {
  stats::ChannelCounts before;
  before.message_count = 100;
  before.depth = 10;
  stats::ChannelCounts now;
  now.message_count = 150;  // +50 in 2s: ingress 25
  now.depth = 20;           // +10: egress (50-10)/2 = 20
  now.backend_depth = 5;
  now.in_flight_count = 3;
  now.deferred_count = 4;
  now.requeue_count = 6;
  now.timeout_count = 7;
  now.client_count = 2;
  EXPECT_EQ(report_line(before, now, std::chrono::seconds(2)),
            "     25      20 |      20      15       5     3     4 |       6       7          150 "
            "      2\n");
}

TEST(ReportFormat, RatesTruncateTowardZero) {
  stats::ChannelCounts before;
  stats::ChannelCounts now;
  now.message_count = 5;
  now.depth = 9;  // egress (5-9)/3 = -1.33 -> -1
  auto line = report_line(before, now, std::chrono::seconds(3));
  EXPECT_EQ(line.substr(0, 16), "      1      -1 ");
}

TEST(ReportFormat, SubSecondIntervalScalesUp) {
  stats::ChannelCounts before;
  stats::ChannelCounts now;
  now.message_count = 10;
  auto line = report_line(before, now, std::chrono::milliseconds(500));
  EXPECT_EQ(line.substr(0, 16), "     20      20 ");
}

TEST(ReportFormat, WideNumbersAreNotCut) {
  stats::ChannelCounts before;
  stats::ChannelCounts now;
  now.message_count = 1234567890123;
  auto line = report_line(before, now, std::chrono::seconds(1000000));
  EXPECT_NE(line.find(" 1234567890123 "), std::string::npos);
}

}  // namespace
}  // namespace nsq::stat
