#include "go_strftime.h"

#include <gtest/gtest.h>

namespace nsq::to_file {
namespace {

// Tuesday 2024-01-30 14:05:09 in a zone one hour east of UTC.
std::tm sample_time() {
  std::tm t{};
  t.tm_year = 2024 - 1900;
  t.tm_mon = 0;
  t.tm_mday = 30;
  t.tm_hour = 14;
  t.tm_min = 5;
  t.tm_sec = 9;
  t.tm_wday = 2;
  t.tm_gmtoff = 3600;
  t.tm_zone = "CET";
  return t;
}

TEST(GoStrftime, DefaultFormat) {
  EXPECT_EQ(go_strftime("%Y-%m-%d_%H", sample_time()), "2024-01-30_14");
}

TEST(GoStrftime, EveryConversion) {
  EXPECT_EQ(go_strftime("%B %b %m %A %a %d %H %I %M %S %Y %y %p %Z %z %%", sample_time()),
            "January Jan 01 Tuesday Tue 30 14 02 05 09 2024 24 PM CET +0100 %");
}

TEST(GoStrftime, TwelveHourClockAndMorning) {
  std::tm t = sample_time();
  t.tm_hour = 0;
  EXPECT_EQ(go_strftime("%I%p", t), "12AM");
  t.tm_hour = 12;
  EXPECT_EQ(go_strftime("%I%p", t), "12PM");
}

TEST(GoStrftime, NegativeOffsetAndNamelessZone) {
  std::tm t = sample_time();
  t.tm_gmtoff = -(5 * 3600 + 30 * 60);
  t.tm_zone = "";
  EXPECT_EQ(go_strftime("%z %Z", t), "-0530 -0530");
}

TEST(GoStrftime, OtherTextIsLiteral) {
  EXPECT_EQ(go_strftime("log-%Q-1-%", sample_time()), "log-%Q-1-%");
  EXPECT_EQ(go_strftime("", sample_time()), "");
}

}  // namespace
}  // namespace nsq::to_file
