#include "nsq/names.h"

#include <string>

#include <gtest/gtest.h>

namespace nsq {
namespace {

bool both_valid(std::string_view n) { return is_valid_topic_name(n) && is_valid_channel_name(n); }
bool both_invalid(std::string_view n) {
  return !is_valid_topic_name(n) && !is_valid_channel_name(n);
}

TEST(NamesTest, ValidCharacters) {
  EXPECT_TRUE(both_valid("a"));
  EXPECT_TRUE(both_valid("test"));
  EXPECT_TRUE(both_valid("Test_Topic-1.2"));
  EXPECT_TRUE(both_valid("..."));
  EXPECT_TRUE(both_valid("-"));
  EXPECT_TRUE(both_valid("_"));
  EXPECT_TRUE(both_valid("0123456789"));
  EXPECT_TRUE(both_valid("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"));
}

TEST(NamesTest, InvalidCharacters) {
  for (const char* n : {"a b", "a/b", "a:b", "a#b", "a*", "a\n", "t\xc3\xa9st", "a\t", "a,b", "a+b",
                        "#", "a#", "##ephemeral"}) {
    EXPECT_TRUE(both_invalid(n)) << n;
  }
  EXPECT_TRUE(both_invalid(std::string_view("a\0b", 3)));
  EXPECT_TRUE(both_invalid(""));
  // Every byte outside [.a-zA-Z0-9_-].
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
    EXPECT_EQ(is_valid_topic_name(std::string(1, ch)), ok) << c;
    EXPECT_EQ(is_valid_channel_name("x" + std::string(1, ch)), ok) << c;
  }
}

TEST(NamesTest, Length) {
  EXPECT_TRUE(both_valid(std::string(64, 'a')));
  EXPECT_TRUE(both_invalid(std::string(65, 'a')));
  EXPECT_TRUE(both_valid(std::string(54, 'a') + "#ephemeral"));    // 64 with the suffix
  EXPECT_TRUE(both_invalid(std::string(55, 'a') + "#ephemeral"));  // 65
}

TEST(NamesTest, EphemeralSuffix) {
  EXPECT_TRUE(both_valid("a#ephemeral"));
  EXPECT_TRUE(both_valid("test.ch-1_x#ephemeral"));
  EXPECT_TRUE(both_invalid("#ephemeral"));
  EXPECT_TRUE(both_invalid("a#eph"));
  EXPECT_TRUE(both_invalid("a#ephemeral#ephemeral"));
  EXPECT_TRUE(both_invalid("a#Ephemeral"));
  EXPECT_TRUE(both_invalid("a#ephemeralx"));
  EXPECT_TRUE(both_invalid("a #ephemeral"));
}

TEST(NamesTest, IsEphemeral) {
  EXPECT_TRUE(is_ephemeral("a#ephemeral"));
  EXPECT_TRUE(is_ephemeral("#ephemeral"));  // suffix test only, like nsqd
  EXPECT_FALSE(is_ephemeral("a"));
  EXPECT_FALSE(is_ephemeral("a#eph"));
  EXPECT_FALSE(is_ephemeral("ephemeral"));
  EXPECT_FALSE(is_ephemeral("a#ephemeral "));
  EXPECT_FALSE(is_ephemeral(""));
}

}  // namespace
}  // namespace nsq
