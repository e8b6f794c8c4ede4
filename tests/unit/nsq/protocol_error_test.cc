#include "nsq/protocol_error.h"

#include <string>

#include <gtest/gtest.h>

#include "nsq/frame.h"

namespace nsq {
namespace {

using namespace std::string_literals;

TEST(ProtocolErrorTest, Render) {
  EXPECT_EQ(fatal_error("E_BAD_BODY", "MPUB invalid message count 0").render(),
            "E_BAD_BODY MPUB invalid message count 0");
  const ProtocolError nonfatal{"E_FIN_FAILED", "FIN 0123456789abcdef failed ID not in flight",
                               false};
  EXPECT_FALSE(nonfatal.fatal);
  EXPECT_EQ(nonfatal.render(), "E_FIN_FAILED FIN 0123456789abcdef failed ID not in flight");
}

TEST(ProtocolErrorTest, FatalByDefault) {
  EXPECT_TRUE(ProtocolError{}.fatal);
  EXPECT_TRUE(fatal_error("E_INVALID", "x").fatal);
}

TEST(ProtocolErrorTest, ErrorFrame) {
  std::string out;
  append_error_frame(out, fatal_error("E_INVALID", "invalid command X"));
  EXPECT_EQ(out, "\x00\x00\x00\x1f\x00\x00\x00\x01"s + "E_INVALID invalid command X");
}

}  // namespace
}  // namespace nsq
