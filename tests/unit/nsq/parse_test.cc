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
  for (const char* s : {"+1", "-1", "-0", " 1", "1 ", "1a", "a", "1.0", "0x10", "1e3", "\xef\xbc\x91"}) {
    EXPECT_FALSE(parse_decimal_digits(s)) << s;
  }
  EXPECT_FALSE(parse_decimal_digits(std::string_view("1\0", 2)));
}

TEST(ParseDecimalDigitsTest, Overflow) {
  EXPECT_EQ(parse_decimal_digits("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_decimal_digits("18446744073709551616"));
  EXPECT_FALSE(parse_decimal_digits("18446744073709551620"));
  EXPECT_FALSE(parse_decimal_digits("99999999999999999999999"));
  EXPECT_EQ(parse_decimal_digits("0000000000000000000000000018446744073709551615"), UINT64_MAX);
}

}  // namespace
}  // namespace nsq
