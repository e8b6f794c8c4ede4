#include "nsq/message.h"

#include <string>

#include <gtest/gtest.h>

#include "nsq/error.h"
#include "nsq/frame.h"

namespace nsq {
namespace {

using namespace std::string_literals;

MessageHeader sample_header() {
  MessageHeader h;
  h.timestamp_ns = 0x0102030405060708;
  h.attempts = 0x0a0b;
  h.id = *to_message_id("0123456789abcdef");
  return h;
}

TEST(MessageTest, LayoutIsSpecSection4) {
  std::string out;
  append_message(out, sample_header(), "hello");
  EXPECT_EQ(out,
            "\x01\x02\x03\x04\x05\x06\x07\x08"  // timestamp
            "\x0a\x0b"                          // attempts
            "0123456789abcdef"                  // id
            "hello"s);
  EXPECT_EQ(out.size(), kMessageHeaderSize + 5);
}

TEST(MessageTest, NegativeTimestampAndMaxAttempts) {
  MessageHeader h;
  h.timestamp_ns = -1;
  h.attempts = 65535;
  std::string out;
  append_message(out, h, "");
  EXPECT_EQ(out.substr(0, 10), "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"s);
  EXPECT_EQ(out.substr(10), std::string(16, '\0'));
}

TEST(MessageTest, MessageFrameEqualsFrameOfMessage) {
  const std::string body(1000, 'b');
  std::string msg;
  append_message(msg, sample_header(), body);
  std::string expected = "prefix";
  append_frame(expected, FrameType::message, msg);

  std::string out = "prefix";
  append_message_frame(out, sample_header(), body);
  EXPECT_EQ(out, expected);
  EXPECT_EQ(out.substr(6, 8), "\x00\x00\x04\x06\x00\x00\x00\x02"s);  // 4 + 26 + 1000 = 1030
}

TEST(MessageTest, DecodeRoundTrip) {
  std::string out;
  append_message(out, sample_header(), "payload\0bytes"s);
  const auto m = decode_message(out);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->header, sample_header());
  EXPECT_EQ(m->body, "payload\0bytes"s);
  EXPECT_EQ(m->body.data(), out.data() + kMessageHeaderSize);  // a view, no copy
}

TEST(MessageTest, DecodeHeaderOnly) {
  std::string out;
  append_message(out, sample_header(), "");
  const auto m = decode_message(out);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->body.empty());
}

TEST(MessageTest, DecodeTooShort) {
  std::string out;
  append_message(out, sample_header(), "");
  for (size_t n = 0; n < kMessageHeaderSize; ++n) {
    const auto m = decode_message(std::string_view(out).substr(0, n));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error(), errc::invalid_message);
  }
}

TEST(MessageTest, ToMessageId) {
  EXPECT_TRUE(to_message_id("0123456789abcdef"));
  EXPECT_TRUE(to_message_id(std::string(16, '\xff')));  // any bytes: clients echo what they got
  EXPECT_FALSE(to_message_id("0123456789abcde"));
  EXPECT_FALSE(to_message_id("0123456789abcdef0"));
  EXPECT_FALSE(to_message_id(""));
  EXPECT_EQ(to_string_view(*to_message_id("fedcba9876543210")), "fedcba9876543210");
}

}  // namespace
}  // namespace nsq
