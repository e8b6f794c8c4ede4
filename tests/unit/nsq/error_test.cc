#include "nsq/error.h"

#include <gtest/gtest.h>

namespace nsq {
namespace {

TEST(ErrorTest, CategoryNameAndMessages) {
  const std::error_code ec = errc::bad_json;
  EXPECT_STREQ(ec.category().name(), "nsq");
  EXPECT_EQ(ec.message(), "failed to decode JSON");
  EXPECT_EQ(std::error_code(errc::id_clock_backwards).message(), "time has gone backwards");
  EXPECT_EQ(std::error_code(errc::id_sequence_exhausted).message(), "sequence expired");
  EXPECT_EQ(std::error_code(errc::id_not_increasing).message(), "ID went backward");
  EXPECT_EQ(std::error_code(static_cast<errc>(999)).message(), "unknown nsq error");
}

TEST(ErrorTest, EveryCodeHasItsOwnMessage) {
  const errc all[] = {errc::bad_frame,        errc::frame_too_big,      errc::invalid_message,
                      errc::bad_json,         errc::id_clock_backwards, errc::id_sequence_exhausted,
                      errc::id_not_increasing};
  for (errc a : all) {
    const std::error_code ea = a;
    EXPECT_TRUE(ea);
    EXPECT_NE(ea.message(), "unknown nsq error");
    for (errc b : all) {
      if (a != b) {
        EXPECT_NE(ea.message(), std::error_code(b).message());
      }
    }
  }
}

TEST(ErrorTest, ComparesByCategory) {
  const std::error_code ec = make_error_code(errc::bad_frame);
  EXPECT_EQ(ec, errc::bad_frame);
  EXPECT_NE(ec, errc::frame_too_big);
  // Same value, other category: must not compare equal.
  EXPECT_NE(ec, std::error_code(static_cast<int>(errc::bad_frame), std::generic_category()));
}

}  // namespace
}  // namespace nsq
