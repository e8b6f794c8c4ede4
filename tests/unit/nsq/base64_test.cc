#include "nsq/base64.h"

#include <gtest/gtest.h>

namespace nsq {
namespace {

TEST(Base64, EncodesAsRfc4648WithPadding) {
  EXPECT_EQ(base64::encode(""), "");
  EXPECT_EQ(base64::encode("f"), "Zg==");
  EXPECT_EQ(base64::encode("fo"), "Zm8=");
  EXPECT_EQ(base64::encode("foo"), "Zm9v");
  EXPECT_EQ(base64::encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64::encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(Base64, DecodesWhatItEncodes) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (std::size_t n = 0; n <= all.size(); n += 37) {
    const std::string bytes = all.substr(0, n);
    EXPECT_EQ(base64::decode(base64::encode(bytes)), bytes) << n;
  }
  EXPECT_EQ(base64::decode("Zm9vYg=="), "foob");
}

TEST(Base64, RefusesWhatIsNotBase64) {
  EXPECT_FALSE(base64::decode("Zm9"));       // length
  EXPECT_FALSE(base64::decode("Zm9v!A=="));  // alphabet
  EXPECT_FALSE(base64::decode("Z=9v"));      // padding inside
  EXPECT_FALSE(base64::decode("Zg==Zm9v"));  // padding before the end
  EXPECT_FALSE(base64::decode("Z==="));
  EXPECT_FALSE(base64::decode("Zh==")) << "bits after the last byte";
}

}  // namespace
}  // namespace nsq
