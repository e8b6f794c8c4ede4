#include "utf8.h"

#include <string>

#include <gtest/gtest.h>

namespace nsq::detail {
namespace {

using namespace std::string_literals;

const std::string kFffd = "\xef\xbf\xbd";

TEST(SanitizeUtf8Test, ValidIsUnchanged) {
  for (std::string s : {""s, "ascii"s, "\0x"s, "\xc3\xa9"s, "\xe2\x82\xac"s, "\xf0\x9f\x98\x80"s,
                        "\xf4\x8f\xbf\xbf"s, "\xed\x9f\xbf"s, "\xef\xbf\xbd"s}) {
    EXPECT_EQ(sanitize_utf8(s), s);
  }
}

TEST(SanitizeUtf8Test, EachInvalidByteBecomesOneReplacement) {
  EXPECT_EQ(sanitize_utf8("a\xff" "b"), "a" + kFffd + "b");
  EXPECT_EQ(sanitize_utf8("\x80\x80"), kFffd + kFffd);
  EXPECT_EQ(sanitize_utf8("\xc0\xaf"), kFffd + kFffd);              // overlong
  EXPECT_EQ(sanitize_utf8("\xe0\x80\xaf"), kFffd + kFffd + kFffd);  // overlong
  EXPECT_EQ(sanitize_utf8("\xed\xa0\x80"), kFffd + kFffd + kFffd);  // surrogate
  EXPECT_EQ(sanitize_utf8("\xf4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_EQ(sanitize_utf8("\xc3"), kFffd);                                       // truncated
  EXPECT_EQ(sanitize_utf8("\xe2\x82"), kFffd + kFffd);
  EXPECT_EQ(sanitize_utf8("\xe2\x82x"), kFffd + kFffd + "x");
  EXPECT_EQ(sanitize_utf8("\xf5\x80\x80\x80"), kFffd + kFffd + kFffd + kFffd);
}

}  // namespace
}  // namespace nsq::detail
