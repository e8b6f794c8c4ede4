#include "nsq/id_generator.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "nsq/error.h"

namespace nsq {
namespace {

// unix nanoseconds at the start of pseudo-millisecond kIdEpoch + offset.
int64_t nanos_at(int64_t offset, int64_t extra_ns = 0) {
  return ((IdGenerator::kIdEpoch + offset) << 20) + extra_ns;
}

std::string str(const MessageId& id) { return std::string(to_string_view(id)); }

TEST(FormatMessageIdTest, LowercaseHexBigEndian) {
  EXPECT_EQ(str(format_message_id(0)), "0000000000000000");
  EXPECT_EQ(str(format_message_id(0x0123456789abcdef)), "0123456789abcdef");
  EXPECT_EQ(str(format_message_id(UINT64_MAX)), "ffffffffffffffff");
  EXPECT_EQ(str(format_message_id(0xA)), "000000000000000a");
}

TEST(IdGeneratorTest, LayoutOfTheId) {
  IdGenerator g(5);
  const auto id = g.next(nanos_at(1));
  ASSERT_TRUE(id);
  // (1 << 22) | (5 << 12) | 0
  EXPECT_EQ(str(*id), "0000000000405000");
}

TEST(IdGeneratorTest, RealisticTime) {
  // 2023-12-01T00:00:00Z.
  const int64_t nanos = 1701388800LL * 1000000000LL;
  IdGenerator g(1023);
  const auto id = g.next(nanos);
  ASSERT_TRUE(id);
  const uint64_t want =
      (static_cast<uint64_t>((nanos >> 20) - IdGenerator::kIdEpoch) << 22) | (uint64_t{1023} << 12);
  EXPECT_EQ(*id, format_message_id(want));
}

TEST(IdGeneratorTest, SequenceWithinOneTimestampThenReset) {
  IdGenerator g(0);
  EXPECT_EQ(str(*g.next(nanos_at(1))), "0000000000400000");
  EXPECT_EQ(str(*g.next(nanos_at(1, 1))), "0000000000400001");
  EXPECT_EQ(str(*g.next(nanos_at(1, (1 << 20) - 1))), "0000000000400002");
  EXPECT_EQ(str(*g.next(nanos_at(2))), "0000000000800000");
}

TEST(IdGeneratorTest, ClockBackwards) {
  IdGenerator g(0);
  ASSERT_TRUE(g.next(nanos_at(10)));
  const auto id = g.next(nanos_at(9));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error(), errc::id_clock_backwards);
  // Within the same pseudo-millisecond going back is not "backwards".
  EXPECT_TRUE(g.next(nanos_at(10, 5)));
  EXPECT_TRUE(g.next(nanos_at(10, 1)));
  EXPECT_TRUE(g.next(nanos_at(11)));
}

TEST(IdGeneratorTest, SequenceExhaustedThenNotIncreasingUntilNextTimestamp) {
  IdGenerator g(3);
  std::string last;
  for (int i = 0; i < 4096; ++i) {
    const auto id = g.next(nanos_at(100));
    ASSERT_TRUE(id) << i;
    EXPECT_GT(str(*id), last);
    last = str(*id);
  }
  EXPECT_EQ(*to_message_id(last), format_message_id((uint64_t{100} << 22) | (3 << 12) | 4095));
  auto id = g.next(nanos_at(100));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error(), errc::id_sequence_exhausted);
  // The sequence restarts at 0 within the same ts: not above the last id.
  id = g.next(nanos_at(100));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error(), errc::id_not_increasing);
  // The next pseudo-millisecond works again.
  id = g.next(nanos_at(101));
  ASSERT_TRUE(id);
  EXPECT_EQ(*id, format_message_id((uint64_t{101} << 22) | (3 << 12)));
}

TEST(IdGeneratorTest, ClockBeforeEpochFails) {
  IdGenerator g(0);
  const auto id = g.next(nanos_at(-1));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error(), errc::id_not_increasing);
  EXPECT_FALSE(g.next(0));
}

TEST(IdGeneratorTest, HundredThousandIdsIncreaseAndAreUnique) {
  IdGenerator g(42);
  int64_t now = 1701388800LL * 1000000000LL;
  std::set<std::string> seen;
  std::string last;
  int failures = 0;
  while (seen.size() < 100000) {
    now += 97;  // ~10800 requests per pseudo-ms: forces sequence exhaustion
    auto id = g.next(now);
    if (!id) {
      ++failures;
      EXPECT_TRUE(id.error() == errc::id_sequence_exhausted ||
                  id.error() == errc::id_not_increasing);
      now += 1000000;  // nsqd sleeps 1 ms and retries
      continue;
    }
    const std::string s = str(*id);
    ASSERT_EQ(s.find_first_not_of("0123456789abcdef"), std::string::npos);
    ASSERT_GT(s, last);  // fixed width: string order is numeric order
    last = s;
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 100000u);
  EXPECT_GT(failures, 0);
}

TEST(IdGeneratorTest, NodeIdIsInTheMiddleBits) {
  for (int64_t node : {0, 1, 512, 1023}) {
    IdGenerator g(node);
    EXPECT_EQ(g.node_id(), node);
    const auto id = g.next(nanos_at(7));
    ASSERT_TRUE(id);
    EXPECT_EQ(*id, format_message_id((uint64_t{7} << 22) | (static_cast<uint64_t>(node) << 12)));
  }
}

}  // namespace
}  // namespace nsq
