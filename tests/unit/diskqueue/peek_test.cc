// DiskQueue::peek_each: the unread records, across segments, without moving
// the reader.
#include <gtest/gtest.h>

#include "diskqueue/disk_queue.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

std::unique_ptr<DiskQueue> open_small(const TempDir& dir, std::int64_t preallocate = 0) {
  Options o;
  o.name = "peek";
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 1 << 20;
  o.max_bytes_per_file = 100;  // two 46-byte records per segment
  o.preallocate_bytes = preallocate;
  auto q = DiskQueue::open(std::move(o));
  EXPECT_TRUE(q.has_value());
  return q ? std::move(*q) : nullptr;
}

std::string record(int i) { return std::string(46, static_cast<char>('a' + i)); }

std::vector<std::string> peek(const DiskQueue& q, std::size_t n, std::size_t bytes = 1 << 20) {
  std::vector<std::string> out;
  q.peek_each(n, bytes, [&](std::string_view d) { out.emplace_back(d); });
  return out;
}

TEST(DiskQueuePeek, SeesTheUnreadRecordsAcrossSegmentsAndLeavesThemThere) {
  for (std::int64_t preallocate : {std::int64_t{0}, std::int64_t{100}}) {
    TempDir dir;
    auto q = open_small(dir, preallocate);
    for (int i = 0; i < 7; ++i) ASSERT_FALSE(q->put(record(i)));
    ASSERT_EQ(*q->try_read(), record(0));
    ASSERT_EQ(*q->try_read(), record(1));
    ASSERT_EQ(*q->try_read(), record(2));
    EXPECT_EQ(peek(*q, 10), (std::vector<std::string>{record(3), record(4), record(5), record(6)}))
        << "preallocate " << preallocate;
    EXPECT_EQ(peek(*q, 2), (std::vector<std::string>{record(3), record(4)}));
    EXPECT_EQ(peek(*q, 10, 50).size(), 2u) << "stops once max_bytes is reached";
    EXPECT_EQ(q->depth(), 4) << "nothing consumed";
    EXPECT_EQ(*q->try_read(), record(3));
  }
}

TEST(DiskQueuePeek, EmptyQueueSeesNothing) {
  TempDir dir;
  auto q = open_small(dir);
  EXPECT_TRUE(peek(*q, 10).empty());
  ASSERT_FALSE(q->put(record(0)));
  ASSERT_TRUE(q->try_read());
  EXPECT_TRUE(peek(*q, 10).empty());
}

}  // namespace
}  // namespace nsq::diskqueue
