#include "net/read_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace nsq::nsqd {
namespace {

// Reads from `source` as a socket would: at most what prepare() offered.
std::size_t read_from(ReadBuffer& buf, std::string_view& source, std::size_t need) {
  auto space = buf.prepare(need);
  std::size_t got = std::min(space.size(), source.size());
  std::copy_n(source.data(), got, space.data());
  source.remove_prefix(got);
  buf.commit(got, space.size());
  return got;
}

TEST(ReadBuffer, StartsSmall) {
  ReadBuffer buf;
  EXPECT_EQ(buf.capacity(), 0u);
  std::string_view src = "  V2NOP\n";
  read_from(buf, src, 4);
  EXPECT_EQ(buf.capacity(), ReadBuffer::kMinRead);
  EXPECT_EQ(buf.data(), "  V2NOP\n");
  buf.consume(4);
  EXPECT_EQ(buf.data(), "NOP\n");
}

TEST(ReadBuffer, GrowsWhileReadsFillItThenShrinksWhenIdle) {
  ReadBuffer buf;
  std::string stream(1 << 20, 'x');
  std::string_view src = stream;
  // A publisher with more queued than each read takes: the reads grow.
  std::size_t last = 0;
  for (int i = 0; i < 8; ++i) {
    last = read_from(buf, src, 1);
    buf.consume(buf.size());
  }
  EXPECT_EQ(last, ReadBuffer::kMaxRead);
  EXPECT_EQ(buf.read_size(), ReadBuffer::kMaxRead);
  EXPECT_EQ(buf.capacity(), ReadBuffer::kMaxRead);
  // A small read alone may be the start of the next frame: no change.
  std::string_view nop = "NOP\n";
  read_from(buf, nop, 1);
  buf.consume(buf.size());
  EXPECT_EQ(buf.read_size(), ReadBuffer::kMaxRead);
  // Then only heartbeat replies: the block goes back.
  for (int i = 1; i < ReadBuffer::kSmallReadsToShrink; ++i) {
    nop = "NOP\n";
    read_from(buf, nop, 1);
    buf.consume(buf.size());
  }
  EXPECT_EQ(buf.read_size(), ReadBuffer::kMinRead);
  buf.prepare(1);
  EXPECT_EQ(buf.capacity(), ReadBuffer::kMinRead);
}

TEST(ReadBuffer, FitsABigFrameKeepingUnreadBytes) {
  ReadBuffer buf;
  std::string frame = "PUB t\n" + std::string(4, '\0') + std::string(1 << 20, 'b');
  std::string_view src = frame;
  read_from(buf, src, 1);
  buf.consume(10);  // the command line and the size
  const std::size_t body = 1 << 20;
  while (buf.size() < body) read_from(buf, src, body);
  EXPECT_GE(buf.capacity(), body);
  EXPECT_EQ(buf.data(), std::string(body, 'b'));
  buf.consume(body);
  // Once consumed, the big block is released before the next read.
  buf.prepare(1);
  EXPECT_LE(buf.capacity(), ReadBuffer::kMaxRead);
}

TEST(ReadBuffer, KeepsUnreadBytesWhenTheBlockMovesOrGrows) {
  ReadBuffer buf;
  std::string stream(ReadBuffer::kMinRead, 'y');
  std::string_view src = stream;
  read_from(buf, src, 1);  // fills kMinRead: the next read asks for twice that
  buf.consume(ReadBuffer::kMinRead - 10);
  std::string more(100, 'z');
  std::string_view src2 = more;
  read_from(buf, src2, 20);
  EXPECT_EQ(buf.data(), std::string(10, 'y') + more);
}

}  // namespace
}  // namespace nsq::nsqd
