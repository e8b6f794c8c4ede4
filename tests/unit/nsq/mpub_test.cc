#include "nsq/mpub.h"

#include <string>

#include <gtest/gtest.h>

#include "nsq/endian.h"

namespace nsq {
namespace {

using namespace std::string_literals;

std::string be32(int32_t v) {
  std::string s;
  append_u32be(s, static_cast<uint32_t>(v));
  return s;
}

ProtocolError fails(std::string_view body, MpubLimits l = {}) {
  const auto r = parse_mpub_body(body, l);
  EXPECT_FALSE(r);
  return r ? ProtocolError{} : r.error();
}

TEST(MpubTest, ParsesMessages) {
  const std::string body = be32(3) + be32(1) + "a" + be32(5) + "hello" + be32(2) + "\0\xff"s;
  const auto r = parse_mpub_body(body, {});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0], "a");
  EXPECT_EQ((*r)[1], "hello");
  EXPECT_EQ((*r)[2], "\0\xff"s);
  EXPECT_EQ((*r)[1].data(), body.data() + 13);  // views into the body
}

TEST(MpubTest, RoundTripWithAppend) {
  std::string body;
  append_mpub_body(body, {"one", "two", std::string_view("three")});
  EXPECT_EQ(body, be32(3) + be32(3) + "one" + be32(3) + "two" + be32(5) + "three");
  const auto r = parse_mpub_body(body, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, (std::vector<std::string_view>{"one", "two", "three"}));
}

TEST(MpubTest, TrailingBytesAreIgnored) {
  const auto r = parse_mpub_body(be32(1) + be32(1) + "a" + "extra", {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 1u);
}

TEST(MpubTest, FailedToReadCount) {
  for (std::string b : {""s, "\0"s, "\0\0\0"s}) {
    EXPECT_EQ(fails(b).render(), "E_BAD_BODY MPUB failed to read message count");
  }
}

TEST(MpubTest, InvalidCount) {
  EXPECT_EQ(fails(be32(0)).render(), "E_BAD_BODY MPUB invalid message count 0");
  EXPECT_EQ(fails(be32(-1)).render(), "E_BAD_BODY MPUB invalid message count -1");
  // (max_body_size - 4) / 5 with the default 5 MiB: 1048575 allowed, 1048576 not.
  EXPECT_EQ(fails(be32(1048576)).render(), "E_BAD_BODY MPUB invalid message count 1048576");
  EXPECT_EQ(fails(be32(1048575)).code, "E_BAD_MESSAGE");  // count ok, then the body runs out
  MpubLimits l;
  l.max_body_size = 14;  // (14 - 4) / 5 = 2
  EXPECT_EQ(fails(be32(3), l).text, "MPUB invalid message count 3");
  EXPECT_TRUE(parse_mpub_body(be32(2) + be32(1) + "a" + be32(1) + "b", l));
}

TEST(MpubTest, FailedToReadMessageSize) {
  EXPECT_EQ(fails(be32(1)).render(), "E_BAD_MESSAGE MPUB failed to read message(0) body size");
  EXPECT_EQ(fails(be32(3) + be32(1) + "a" + be32(1) + "b" + "\0\0"s).render(),
            "E_BAD_MESSAGE MPUB failed to read message(2) body size");
}

TEST(MpubTest, InvalidMessageSize) {
  EXPECT_EQ(fails(be32(5) + be32(1) + "a" + be32(1) + "b" + be32(1) + "c" + be32(0)).render(),
            "E_BAD_MESSAGE MPUB invalid message(3) body size 0");
  EXPECT_EQ(fails(be32(1) + be32(-7)).text, "MPUB invalid message(0) body size -7");
  EXPECT_EQ(fails(be32(1) + be32(INT32_MIN)).text, "MPUB invalid message(0) body size -2147483648");
}

TEST(MpubTest, MessageTooBig) {
  MpubLimits l;
  l.max_msg_size = 1024;
  EXPECT_EQ(fails(be32(1) + be32(2000), l).render(),
            "E_BAD_MESSAGE MPUB message too big 2000 > 1024");
  EXPECT_EQ(fails(be32(1) + be32(1025), l).text, "MPUB message too big 1025 > 1024");
  EXPECT_TRUE(parse_mpub_body(be32(1) + be32(1024) + std::string(1024, 'x'), l));
  EXPECT_EQ(fails(be32(1) + be32(INT32_MAX)).text, "MPUB message too big 2147483647 > 1048576");
}

TEST(MpubTest, FailedToReadMessageBody) {
  EXPECT_EQ(fails(be32(1) + be32(5) + "abcd").render(),
            "E_BAD_MESSAGE MPUB failed to read message body");
  EXPECT_EQ(fails(be32(2) + be32(1) + "a" + be32(3)).text, "MPUB failed to read message body");
}

TEST(MpubTest, ChecksStopAtTheFirstBadMessage) {
  MpubLimits l;
  l.max_msg_size = 4;
  // Message 0 is too big; message 1's zero size is never looked at.
  EXPECT_EQ(fails(be32(2) + be32(5) + "12345" + be32(0), l).text, "MPUB message too big 5 > 4");
}

TEST(MpubTest, AllErrorsAreFatal) {
  EXPECT_TRUE(fails("").fatal);
  EXPECT_TRUE(fails(be32(0)).fatal);
  EXPECT_TRUE(fails(be32(1)).fatal);
}

}  // namespace
}  // namespace nsq
