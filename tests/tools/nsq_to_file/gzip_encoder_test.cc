#include "gzip_encoder.h"

#include <gtest/gtest.h>

#include "gunzip.h"

namespace nsq::to_file {
namespace {

TEST(GzipEncoder, MembersConcatenateToTheInput) {
  GzipEncoder gz(6);
  std::string out;
  std::string expected;
  for (int member = 0; member < 3; ++member) {
    for (int i = 0; i < 1000; ++i) {
      std::string line = "member " + std::to_string(member) + " line " + std::to_string(i) + "\n";
      gz.write(line, &out);
      expected += line;
    }
    EXPECT_TRUE(gz.member_has_input());
    gz.finish_member(&out);
    EXPECT_FALSE(gz.member_has_input());
  }
  EXPECT_EQ(testutil::gzip_member_count(out), 3);
  EXPECT_EQ(testutil::gunzip_members(out), expected);
}

TEST(GzipEncoder, EmptyMemberIsValidGzip) {
  GzipEncoder gz(1);
  std::string out;
  gz.finish_member(&out);
  EXPECT_EQ(testutil::gzip_member_count(out), 1);
  EXPECT_EQ(testutil::gunzip_members(out), "");
}

TEST(GzipEncoder, HeaderSaysUnknownOsLikeGo) {
  GzipEncoder gz(9);
  std::string out;
  gz.write("x", &out);
  gz.finish_member(&out);
  ASSERT_GE(out.size(), 10u);
  EXPECT_EQ(static_cast<unsigned char>(out[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(out[1]), 0x8b);
  EXPECT_EQ(static_cast<unsigned char>(out[9]), 255);
}

TEST(GzipEncoder, IncompleteMemberIsNotReadable) {
  GzipEncoder gz(6);
  std::string out;
  gz.write(std::string(100000, 'a'), &out);
  // No finish: what is out so far is not a complete gzip file.
  EXPECT_FALSE(testutil::gunzip_members(out).has_value());
}

}  // namespace
}  // namespace nsq::to_file
