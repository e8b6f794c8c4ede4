#include "nsq/parse.h"

#include <gtest/gtest.h>

namespace nsq {
namespace {

TEST(ParseDecimalDigitsTest, Digits) {
  EXPECT_EQ(parse_decimal_digits("0"), 0u);
  EXPECT_EQ(parse_decimal_digits("7"), 7u);
  EXPECT_EQ(parse_decimal_digits("2500"), 2500u);
  EXPECT_EQ(parse_decimal_digits("000123"), 123u);
}

TEST(ParseDecimalDigitsTest, EmptyIsZero) { EXPECT_EQ(parse_decimal_digits(""), 0u); }

TEST(ParseDecimalDigitsTest, AnyOtherByteFails) {
  for (const char* s :
       {"+1", "-1", "-0", " 1", "1 ", "1a", "a", "1.0", "0x10", "1e3", "\xef\xbc\x91"}) {
    EXPECT_FALSE(parse_decimal_digits(s)) << s;
  }
  EXPECT_FALSE(parse_decimal_digits(std::string_view("1\0", 2)));
}

// Go nsqd wraps past 64 bits (its ByteToBase10 has no overflow check).
TEST(ParseDecimalDigitsTest, OverflowWrapsAsGo) {
  EXPECT_EQ(parse_decimal_digits("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_decimal_digits("18446744073709551616"), 0u);
  EXPECT_EQ(parse_decimal_digits("18446744073709551620"), 4u);
  EXPECT_EQ(parse_decimal_digits("0000000000000000000000000018446744073709551615"), UINT64_MAX);
}

TEST(GoMillisToNanosTest, WrapsAsGoDurations) {
  EXPECT_EQ(go_millis_to_nanos(0), 0);
  EXPECT_EQ(go_millis_to_nanos(1500), 1'500'000'000);
  EXPECT_EQ(go_millis_to_nanos(UINT64_MAX), -1'000'000);
  EXPECT_LT(go_millis_to_nanos(9'300'000'000'000), 0);  // past 2^63 ns
}

}  // namespace
}  // namespace nsq
