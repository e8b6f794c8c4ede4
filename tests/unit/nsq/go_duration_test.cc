#include "nsq/flags/go_duration.h"

#include <chrono>

#include <gtest/gtest.h>

namespace nsq::flags {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

nanoseconds parse_ok(std::string_view s) {
  auto d = parse_go_duration(s);
  EXPECT_TRUE(d.has_value()) << s << ": " << (d ? "" : d.error());
  return d.value_or(nanoseconds{-12345});
}

std::string parse_err(std::string_view s) {
  auto d = parse_go_duration(s);
  EXPECT_FALSE(d.has_value()) << s;
  return d ? std::string() : d.error();
}

TEST(GoDuration, ParsesSingleUnits) {
  EXPECT_EQ(parse_ok("0"), 0ns);
  EXPECT_EQ(parse_ok("+0"), 0ns);
  EXPECT_EQ(parse_ok("-0"), 0ns);
  EXPECT_EQ(parse_ok("0s"), 0ns);
  EXPECT_EQ(parse_ok("5ns"), 5ns);
  EXPECT_EQ(parse_ok("5us"), 5us);
  EXPECT_EQ(parse_ok("5\xC2\xB5s"), 5us);  // micro sign
  EXPECT_EQ(parse_ok("5\xCE\xBCs"), 5us);  // Greek mu
  EXPECT_EQ(parse_ok("250ms"), 250ms);
  EXPECT_EQ(parse_ok("2s"), 2s);
  EXPECT_EQ(parse_ok("60s"), 1min);
  EXPECT_EQ(parse_ok("15m"), 15min);
  EXPECT_EQ(parse_ok("1h"), 1h);
}

TEST(GoDuration, ParsesCombinationsFractionsAndSigns) {
  EXPECT_EQ(parse_ok("1h30m"), 90min);
  EXPECT_EQ(parse_ok("1m30s"), 90s);
  EXPECT_EQ(parse_ok("1h2m3s4ms5us6ns"), 1h + 2min + 3s + 4ms + 5us + 6ns);
  EXPECT_EQ(parse_ok("1.5s"), 1500ms);
  EXPECT_EQ(parse_ok(".5s"), 500ms);
  EXPECT_EQ(parse_ok("1.s"), 1s);
  EXPECT_EQ(parse_ok("1.0005s"), 1000500us);
  EXPECT_EQ(parse_ok("0.1ns"), 0ns);  // truncated, as Go does
  EXPECT_EQ(parse_ok("-1.5h"), -90min);
  EXPECT_EQ(parse_ok("+5s"), 5s);
  EXPECT_EQ(parse_ok("1s1s"), 2s);                            // units may repeat
  EXPECT_EQ(parse_ok("100.00000000000000000000001s"), 100s);  // long fractions are cut
}

TEST(GoDuration, LimitsAreInt64Nanoseconds) {
  EXPECT_EQ(parse_ok("9223372036854775807ns").count(), INT64_MAX);
  EXPECT_EQ(parse_ok("-9223372036854775808ns").count(), INT64_MIN);
  EXPECT_EQ(parse_err("9223372036854775808ns"), "time: invalid duration \"9223372036854775808ns\"");
  EXPECT_EQ(parse_err("2562048h"), "time: invalid duration \"2562048h\"");
  EXPECT_EQ(parse_ok("2562047h").count(), 2562047LL * 3600 * 1000000000);
}

TEST(GoDuration, ErrorsUseGoText) {
  EXPECT_EQ(parse_err(""), "time: invalid duration \"\"");
  EXPECT_EQ(parse_err("-"), "time: invalid duration \"-\"");
  EXPECT_EQ(parse_err("s"), "time: invalid duration \"s\"");
  EXPECT_EQ(parse_err(".s"), "time: invalid duration \".s\"");
  EXPECT_EQ(parse_err("1"), "time: missing unit in duration \"1\"");
  EXPECT_EQ(parse_err("10"), "time: missing unit in duration \"10\"");
  EXPECT_EQ(parse_err("1.5"), "time: missing unit in duration \"1.5\"");
  EXPECT_EQ(parse_err("1x"), "time: unknown unit \"x\" in duration \"1x\"");
  EXPECT_EQ(parse_err("1sec"), "time: unknown unit \"sec\" in duration \"1sec\"");
  EXPECT_EQ(parse_err("1S"), "time: unknown unit \"S\" in duration \"1S\"");
  EXPECT_EQ(parse_err("1s "), "time: unknown unit \"s \" in duration \"1s \"");
  EXPECT_EQ(parse_err(" 1s"), "time: invalid duration \" 1s\"");
  EXPECT_EQ(parse_err("1s-1s"), "time: unknown unit \"s-\" in duration \"1s-1s\"");
  EXPECT_EQ(parse_err("--1s"), "time: invalid duration \"--1s\"");
}

TEST(GoDuration, FormatsLikeGo) {
  EXPECT_EQ(format_go_duration(0ns), "0s");
  EXPECT_EQ(format_go_duration(1ns), "1ns");
  EXPECT_EQ(format_go_duration(999ns), "999ns");
  EXPECT_EQ(format_go_duration(1100ns), "1.1\xC2\xB5s");
  EXPECT_EQ(format_go_duration(2200us), "2.2ms");
  EXPECT_EQ(format_go_duration(25ms), "25ms");
  EXPECT_EQ(format_go_duration(250ms), "250ms");
  EXPECT_EQ(format_go_duration(1s), "1s");
  EXPECT_EQ(format_go_duration(2s), "2s");
  EXPECT_EQ(format_go_duration(1500ms), "1.5s");
  EXPECT_EQ(format_go_duration(30s), "30s");
  EXPECT_EQ(format_go_duration(1min), "1m0s");
  EXPECT_EQ(format_go_duration(90s), "1m30s");
  EXPECT_EQ(format_go_duration(10min), "10m0s");
  EXPECT_EQ(format_go_duration(15min), "15m0s");
  EXPECT_EQ(format_go_duration(1h), "1h0m0s");
  EXPECT_EQ(format_go_duration(3h + 2min + 1s + 5ms), "3h2m1.005s");
  EXPECT_EQ(format_go_duration(-90min), "-1h30m0s");
  EXPECT_EQ(format_go_duration(-1ns), "-1ns");
  EXPECT_EQ(format_go_duration(nanoseconds{INT64_MAX}), "2562047h47m16.854775807s");
  EXPECT_EQ(format_go_duration(nanoseconds{INT64_MIN}), "-2562047h47m16.854775808s");
}

TEST(GoDuration, FormatThenParseRoundTrips) {
  const std::initializer_list<nanoseconds> samples{1ns, 1500ns, 25ms, 1s, 61s, 1h + 1ns, -3h - 7ms};
  for (const nanoseconds d : samples) {
    EXPECT_EQ(parse_ok(format_go_duration(d)), d) << format_go_duration(d);
  }
}

}  // namespace
}  // namespace nsq::flags
