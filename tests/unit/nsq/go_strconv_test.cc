#include "nsq/flags/go_strconv.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace nsq::flags {
namespace {

TEST(GoStrconv, ParseBoolTakesGoSpellingsOnly) {
  for (const char* s : {"1", "t", "T", "TRUE", "true", "True"})
    EXPECT_EQ(parse_go_bool(s), true) << s;
  for (const char* s : {"0", "f", "F", "FALSE", "false", "False"}) {
    EXPECT_EQ(parse_go_bool(s), false) << s;
  }
  for (const char* s : {"", "yes", "on", "tRUE", "2", " true"}) {
    EXPECT_FALSE(parse_go_bool(s).has_value()) << s;
  }
}

TEST(GoStrconv, ParseIntBase0TakesPrefixesAndUnderscores) {
  EXPECT_EQ(parse_go_int("5", 0), 5);
  EXPECT_EQ(parse_go_int("-5", 0), -5);
  EXPECT_EQ(parse_go_int("+5", 0), 5);
  EXPECT_EQ(parse_go_int("0x1f", 0), 31);
  EXPECT_EQ(parse_go_int("0X1F", 0), 31);
  EXPECT_EQ(parse_go_int("010", 0), 8);
  EXPECT_EQ(parse_go_int("0o17", 0), 15);
  EXPECT_EQ(parse_go_int("0b101", 0), 5);
  EXPECT_EQ(parse_go_int("0", 0), 0);
  EXPECT_EQ(parse_go_int("1_000", 0), 1000);
  EXPECT_EQ(parse_go_int("0x_1f", 0), 31);
  EXPECT_EQ(parse_go_int("9223372036854775807", 0), INT64_MAX);
  EXPECT_EQ(parse_go_int("-9223372036854775808", 0), INT64_MIN);
  EXPECT_EQ(parse_go_int("9223372036854775808", 0), tl::unexpected(NumError::range));
  EXPECT_EQ(parse_go_int("99999999999999999999", 0), tl::unexpected(NumError::range));
  for (const char* s : {"", "-", "x", "0x", "08", "1_", "_1", "1__0", "1.5", "5 ", "1e3"}) {
    EXPECT_EQ(parse_go_int(s, 0), tl::unexpected(NumError::syntax)) << s;
  }
}

TEST(GoStrconv, ParseIntBase10IsPlainDecimal) {
  EXPECT_EQ(parse_go_int("010", 10), 10);
  EXPECT_EQ(parse_go_int("-42", 10), -42);
  EXPECT_FALSE(parse_go_int("0x10", 10).has_value());
  EXPECT_FALSE(parse_go_int("1_000", 10).has_value());
}

TEST(GoStrconv, ParseFloat) {
  EXPECT_EQ(parse_go_float("0.99"), 0.99);
  EXPECT_EQ(parse_go_float("1"), 1.0);
  EXPECT_EQ(parse_go_float("1."), 1.0);
  EXPECT_EQ(parse_go_float(".5"), 0.5);
  EXPECT_EQ(parse_go_float("+.5"), 0.5);
  EXPECT_EQ(parse_go_float("-2.5e-1"), -0.25);
  EXPECT_EQ(parse_go_float("1E2"), 100.0);
  EXPECT_EQ(parse_go_float("Inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_go_float("-infinity"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(parse_go_float("NaN").value()));
  EXPECT_EQ(parse_go_float("1e400"), tl::unexpected(NumError::range));
  EXPECT_EQ(parse_go_float("1e-400"), 0.0);
  for (const char* s : {"", "x", " 1", "1 ", "1,5", "0.5.", "--1", "e5", "0x1p3", "-nan"}) {
    EXPECT_EQ(parse_go_float(s), tl::unexpected(NumError::syntax)) << s;
  }
}

TEST(GoStrconv, FormatFloatLikePercentV) {
  EXPECT_EQ(format_go_float(0), "0");
  EXPECT_EQ(format_go_float(1), "1");
  EXPECT_EQ(format_go_float(1.5), "1.5");
  EXPECT_EQ(format_go_float(0.99), "0.99");
  EXPECT_EQ(format_go_float(-0.5), "-0.5");
  EXPECT_EQ(format_go_float(100000), "100000");
  EXPECT_EQ(format_go_float(0.0001), "0.0001");
  EXPECT_EQ(format_go_float(0.00001), "1e-05");
  EXPECT_EQ(format_go_float(1e-7), "1e-07");
  EXPECT_EQ(format_go_float(1e21), "1e+21");
  EXPECT_EQ(format_go_float(1.25e20), "125000000000000000000");
  EXPECT_EQ(format_go_float(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_go_float(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(GoStrconv, QuoteLikePercentQ) {
  EXPECT_EQ(go_quote("abc"), "\"abc\"");
  EXPECT_EQ(go_quote(""), "\"\"");
  EXPECT_EQ(go_quote("[nsqd] "), "\"[nsqd] \"");
  EXPECT_EQ(go_quote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\x01\"");
}

TEST(GoStrconv, DescribeMatchesFlagPackage) {
  EXPECT_EQ(describe(NumError::syntax), "parse error");
  EXPECT_EQ(describe(NumError::range), "value out of range");
}

}  // namespace
}  // namespace nsq::flags
