#include "nsq/utf8.h"

#include <string>

#include <gtest/gtest.h>

namespace nsq::utf8 {
namespace {

using namespace std::string_literals;

const std::string kFffd = "\xef\xbf\xbd";

TEST(Utf8Test, ValidIsUnchanged) {
  for (std::string s : {""s, "ascii"s, "\0x"s, "\xc3\xa9"s, "\xe2\x82\xac"s, "\xf0\x9f\x98\x80"s,
                        "\xf4\x8f\xbf\xbf"s, "\xed\x9f\xbf"s, "\xef\xbf\xbd"s}) {
    EXPECT_EQ(sanitize(s), s);
  }
}

TEST(Utf8Test, EachInvalidByteBecomesOneReplacement) {
  EXPECT_EQ(sanitize("a\xff"
                     "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(sanitize("\x80\x80"), kFffd + kFffd);
  EXPECT_EQ(sanitize("\xc0\xaf"), kFffd + kFffd);                          // overlong
  EXPECT_EQ(sanitize("\xe0\x80\xaf"), kFffd + kFffd + kFffd);              // overlong
  EXPECT_EQ(sanitize("\xed\xa0\x80"), kFffd + kFffd + kFffd);              // surrogate
  EXPECT_EQ(sanitize("\xf4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_EQ(sanitize("\xc3"), kFffd);                                      // truncated
  EXPECT_EQ(sanitize("\xe2\x82"), kFffd + kFffd);
  EXPECT_EQ(sanitize("\xe2\x82x"), kFffd + kFffd + "x");
  EXPECT_EQ(sanitize("\xf5\x80\x80\x80"), kFffd + kFffd + kFffd + kFffd);
}

TEST(Utf8Test, SequenceLengths) {
  EXPECT_EQ(sequence_length("a", 0), 1u);
  EXPECT_EQ(sequence_length("x\xc3\xa9", 1), 2u);
  EXPECT_EQ(sequence_length("\xe2\x80\xa8", 0), 3u);
  EXPECT_EQ(sequence_length("\xf0\x9f\x98\x80", 0), 4u);
  EXPECT_EQ(sequence_length("\xf0\x9f\x98", 0), 0u);  // cut short
  EXPECT_EQ(sequence_length("\xa9", 0), 0u);          // a continuation byte
}

}  // namespace
}  // namespace nsq::utf8
