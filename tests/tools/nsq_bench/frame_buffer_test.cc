#include "frame_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "nsq/endian.h"
#include "nsq/error.h"
#include "nsq/frame.h"

namespace nsq::bench {
namespace {

std::string frame(FrameType type, std::string_view data) {
  std::string out;
  append_frame(out, type, data);
  return out;
}

TEST(FrameBuffer, SplitsFramesFromOnePut) {
  FrameBuffer b;
  b.put(frame(FrameType::response, "OK") + frame(FrameType::error, "E_INVALID x") +
        frame(FrameType::message, std::string(30, 'm')));
  // All three views are valid together: nothing moves until prepare().
  auto f1 = b.next();
  auto f2 = b.next();
  auto f3 = b.next();
  ASSERT_TRUE(f1 && f2 && f3);
  EXPECT_EQ(f1->type, FrameType::response);
  EXPECT_EQ(f1->data, "OK");
  EXPECT_EQ(f2->type, FrameType::error);
  EXPECT_EQ(f2->data, "E_INVALID x");
  EXPECT_EQ(f3->type, FrameType::message);
  EXPECT_EQ(f3->data, std::string(30, 'm'));
  EXPECT_FALSE(b.next());
  EXPECT_FALSE(b.error());
  EXPECT_EQ(b.buffered(), 0u);
}

TEST(FrameBuffer, WaitsForTheWholeFrame) {
  FrameBuffer b;
  const std::string bytes = frame(FrameType::response, "_heartbeat_");
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
    b.put(bytes.substr(i, 1));
    ASSERT_FALSE(b.next()) << i;
  }
  b.put(bytes.substr(bytes.size() - 1));
  auto f = b.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data, "_heartbeat_");
}

TEST(FrameBuffer, EmptyDataFrame) {
  FrameBuffer b;
  b.put(frame(FrameType::response, ""));
  auto f = b.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data, "");
}

TEST(FrameBuffer, UnknownTypeIsPassedThrough) {
  FrameBuffer b;
  std::string bytes(8, '\0');
  put_u32be(bytes.data(), 4);
  put_u32be(bytes.data() + 4, 7);
  b.put(bytes);
  auto f = b.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(static_cast<int>(f->type), 7);
}

TEST(FrameBuffer, GrowsForAFrameLargerThanItsCapacity) {
  FrameBuffer b(1024);
  const std::string big(1 << 20, 'x');
  b.put(frame(FrameType::message, big));
  auto f = b.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data.size(), big.size());
  EXPECT_EQ(f->data, big);
  EXPECT_GE(b.capacity(), big.size());
}

TEST(FrameBuffer, PrepareLeavesRoomForTheRestOfAPartialFrame) {
  FrameBuffer b(1024);
  const std::string bytes = frame(FrameType::message, std::string(500'000, 'y'));
  b.put(bytes.substr(0, 100));
  EXPECT_FALSE(b.next());  // learns the size
  const auto room = b.prepare();
  EXPECT_GE(room.size(), bytes.size() - 100);
}

TEST(FrameBuffer, SizeBelowFourIsAStickyError) {
  FrameBuffer b;
  std::string bytes(4, '\0');
  put_u32be(bytes.data(), 3);
  b.put(bytes);
  EXPECT_FALSE(b.next());
  EXPECT_EQ(b.error(), make_error_code(errc::bad_frame));
  b.put(frame(FrameType::response, "OK"));
  EXPECT_FALSE(b.next());
}

TEST(FrameBuffer, SizeAboveTheLimitIsAnError) {
  FrameBuffer b(FrameBuffer::kDefaultCapacity, 1000);
  std::string bytes(4, '\0');
  put_u32be(bytes.data(), 1001);
  b.put(bytes);
  EXPECT_FALSE(b.next());
  EXPECT_EQ(b.error(), make_error_code(errc::frame_too_big));
}

// Same frames as libnsq's FrameDecoder for a long stream cut at random
// points, which exercises compaction and growth.
TEST(FrameBuffer, AgreesWithFrameDecoderOnARandomStream) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> size(0, 300'000);
  std::uniform_int_distribution<int> small(0, 200);
  std::uniform_int_distribution<int> type(0, 2);
  std::string stream;
  for (int i = 0; i < 400; ++i) {
    const int n = i % 10 == 0 ? size(rng) : small(rng);
    std::string data(static_cast<std::size_t>(n), static_cast<char>('a' + i % 26));
    if (!data.empty()) data[0] = static_cast<char>(i);
    append_frame(stream, static_cast<FrameType>(type(rng)), data);
  }
  FrameDecoder reference;
  reference.put(stream);
  std::vector<Frame> want;
  while (auto f = reference.next()) want.push_back(*f);
  ASSERT_EQ(want.size(), 400u);

  FrameBuffer b(128 * 1024);
  std::vector<Frame> got;
  std::uniform_int_distribution<int> cut(1, 200'000);
  std::size_t pos = 0;
  while (pos < stream.size()) {
    // Read as a socket would: at most what prepare() offers.
    const auto room = b.prepare();
    const std::size_t n =
        std::min({room.size(), stream.size() - pos, static_cast<std::size_t>(cut(rng))});
    std::copy_n(stream.data() + pos, n, room.data());
    b.commit(n);
    pos += n;
    while (auto f = b.next()) got.push_back(Frame{f->type, std::string(f->data)});
  }
  EXPECT_FALSE(b.error());
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace nsq::bench
