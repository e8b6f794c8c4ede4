#include "nsq/frame.h"

#include <string>

#include <gtest/gtest.h>

#include "nsq/error.h"

namespace nsq {
namespace {

using namespace std::string_literals;

TEST(AppendFrameTest, OkResponseBytes) {
  std::string out;
  append_frame(out, FrameType::response, "OK");
  EXPECT_EQ(out, "\x00\x00\x00\x06\x00\x00\x00\x00\x4f\x4b"s);
}

TEST(AppendFrameTest, ErrorFrameBytes) {
  std::string out;
  append_frame(out, FrameType::error, "E_INVALID invalid command FOO");
  ASSERT_EQ(out.size(), 8u + 29u);
  EXPECT_EQ(out.substr(0, 8), "\x00\x00\x00\x21\x00\x00\x00\x01"s);
  EXPECT_EQ(out.substr(8), "E_INVALID invalid command FOO");
}

TEST(AppendFrameTest, EmptyDataAndAppendsToExisting) {
  std::string out = "xy";
  append_frame(out, FrameType::message, "");
  EXPECT_EQ(out, "xy\x00\x00\x00\x04\x00\x00\x00\x02"s);
}

TEST(AppendFrameTest, LargeSizeIsBigEndian) {
  std::string out;
  append_frame(out, FrameType::response, std::string(0x10203, 'z'));
  EXPECT_EQ(out.substr(0, 8), "\x00\x01\x02\x07\x00\x00\x00\x00"s);
}

std::string frame(FrameType t, std::string_view data) {
  std::string out;
  append_frame(out, t, data);
  return out;
}

TEST(FrameDecoderTest, NeedsMoreThenFrame) {
  FrameDecoder d;
  EXPECT_FALSE(d.next());
  d.put("\x00\x00\x00"s);
  EXPECT_FALSE(d.next());
  d.put("\x06\x00\x00\x00\x00O"s);
  EXPECT_FALSE(d.next());
  d.put("K");
  const auto f = d.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->type, FrameType::response);
  EXPECT_EQ(f->data, "OK");
  EXPECT_FALSE(d.next());
  EXPECT_FALSE(d.error());
  EXPECT_EQ(d.buffered(), 0u);
}

TEST(FrameDecoderTest, ManyFramesOneByteAtATime) {
  std::string stream;
  for (int i = 0; i < 50; ++i) {
    append_frame(stream, static_cast<FrameType>(i % 3),
                 std::string(static_cast<size_t>(i), 'a' + i % 26));
  }
  FrameDecoder d;
  int got = 0;
  for (char c : stream) {
    d.put(std::string_view(&c, 1));
    while (auto f = d.next()) {
      EXPECT_EQ(f->type, static_cast<FrameType>(got % 3));
      EXPECT_EQ(f->data, std::string(static_cast<size_t>(got), 'a' + got % 26));
      ++got;
    }
  }
  EXPECT_EQ(got, 50);
  EXPECT_EQ(d.buffered(), 0u);
}

TEST(FrameDecoderTest, SeveralFramesInOnePut) {
  FrameDecoder d;
  d.put(frame(FrameType::response, "_heartbeat_") + frame(FrameType::error, "E_INVALID x") +
        frame(FrameType::message, "m") + "\x00\x00"s);
  EXPECT_EQ(d.next(), (Frame{FrameType::response, "_heartbeat_"}));
  EXPECT_EQ(d.next(), (Frame{FrameType::error, "E_INVALID x"}));
  EXPECT_EQ(d.next(), (Frame{FrameType::message, "m"}));
  EXPECT_FALSE(d.next());
  EXPECT_EQ(d.buffered(), 2u);
}

TEST(FrameDecoderTest, UnknownTypeIsPassedThrough) {
  FrameDecoder d;
  d.put("\x00\x00\x00\x05\x00\x00\x00\x07z"s);
  const auto f = d.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(static_cast<int32_t>(f->type), 7);
  EXPECT_EQ(f->data, "z");
}

TEST(FrameDecoderTest, SizeBelowFourIsStickyError) {
  for (char size = 0; size < 4; ++size) {
    FrameDecoder d;
    d.put("\x00\x00\x00"s + size + "\x00\x00\x00\x00"s);
    EXPECT_FALSE(d.next());
    EXPECT_EQ(d.error(), errc::bad_frame);
    d.put(frame(FrameType::response, "OK"));
    EXPECT_FALSE(d.next());
    EXPECT_EQ(d.error(), errc::bad_frame);
  }
}

TEST(FrameDecoderTest, SizeLimit) {
  FrameDecoder d(10);
  d.put(frame(FrameType::response, "123456"));  // size 10: at the limit
  EXPECT_TRUE(d.next());
  d.put(frame(FrameType::response, "1234567"));  // size 11
  EXPECT_FALSE(d.next());
  EXPECT_EQ(d.error(), errc::frame_too_big);
}

TEST(FrameDecoderTest, TooBigIsDetectedFromTheHeaderAlone) {
  FrameDecoder d;
  d.put("\x7f\xff\xff\xff"s);
  EXPECT_FALSE(d.next());
  EXPECT_EQ(d.error(), errc::frame_too_big);
}

TEST(FrameDecoderTest, NegativeSizeIsRejected) {
  FrameDecoder d;
  d.put("\xff\xff\xff\xff\x00\x00\x00\x00"s);
  EXPECT_FALSE(d.next());
  EXPECT_TRUE(d.error());
}

TEST(FrameDecoderTest, InterleavedPutAndNextKeepsOrder) {
  FrameDecoder d;
  std::string pending;
  int want = 0;
  for (int i = 0; i < 1000; ++i) {
    pending += frame(FrameType::message, std::to_string(i));
    // Feed in uneven chunks that split frames.
    const size_t n = std::min(pending.size(), static_cast<size_t>(7 + i % 13));
    d.put(std::string_view(pending).substr(0, n));
    pending.erase(0, n);
    while (auto f = d.next()) EXPECT_EQ(f->data, std::to_string(want++));
  }
  d.put(pending);
  while (auto f = d.next()) EXPECT_EQ(f->data, std::to_string(want++));
  EXPECT_EQ(want, 1000);
}

}  // namespace
}  // namespace nsq

namespace nsq {
namespace {

TEST(FrameDecoderTest, TakeBufferedReturnsBytesAfterTheLastFrame) {
  std::string wire;
  append_frame(wire, FrameType::response, "OK");
  wire += "\x01\x02rest";
  FrameDecoder d;
  d.put(wire);
  auto f = d.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data, "OK");
  EXPECT_EQ(d.take_buffered(), "\x01\x02rest");
  EXPECT_EQ(d.buffered(), 0u);
  EXPECT_FALSE(d.next());
}

}  // namespace
}  // namespace nsq
