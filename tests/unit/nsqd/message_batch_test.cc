#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/message.h"

namespace nsq::nsqd {
namespace {

MessageId id_of(int i) {
  MessageId id{};
  const std::string hex = std::to_string(1000000000000000 + i);
  std::copy(hex.begin(), hex.end(), id.begin());
  return id;
}

// Messages of one batch keep their own id, timestamp and body, whatever the
// order they are released in (ASan: no block freed while one of its messages
// lives, none leaked after the last).
TEST(MessageBatch, MessagesOutliveTheBatchAndEachOtherInAnyOrder) {
  std::mt19937 rng(7);
  std::vector<MessageRef> made;
  {
    MessageBatch batch;  // size unknown: blocks grow
    for (int i = 0; i < 1000; ++i) {
      made.push_back(
          batch.make(id_of(i), i, std::string(rng() % 300, static_cast<char>('a' + i % 26))));
    }
  }
  std::vector<MessageRef> copies = made;  // a second holder, as a second channel
  std::shuffle(made.begin(), made.end(), rng);
  made.resize(made.size() / 2);
  for (int i = 0; i < 1000; ++i) {
    const MessageRef& m = copies[static_cast<std::size_t>(i)];
    EXPECT_EQ(m->id(), id_of(i));
    EXPECT_EQ(m->timestamp(), i);
    EXPECT_TRUE(std::all_of(m->body().begin(), m->body().end(),
                            [&](char c) { return c == static_cast<char>('a' + i % 26); }));
  }
  copies.clear();
  for (const MessageRef& m : made) EXPECT_FALSE(m->id() == MessageId{});
}

// An MPUB's batch of known size, a large message among small ones (a block
// of its own), an empty body, and one message alone.
TEST(MessageBatch, KnownSizesLargeAndEmptyBodies) {
  const std::string big(MessageBatch::kBlockBytes, 'B');
  std::vector<MessageRef> made;
  {
    MessageBatch batch(4, 3 + big.size());
    made.push_back(batch.make(id_of(1), 1, "abc"));
    made.push_back(batch.make(id_of(2), 2, big));
    made.push_back(batch.make(id_of(3), 3, ""));
    made.push_back(batch.make(id_of(4), 4, "d"));
  }
  EXPECT_EQ(made[0]->body(), "abc");
  EXPECT_EQ(made[1]->body(), big);
  EXPECT_EQ(made[2]->body(), "");
  EXPECT_EQ(made[3]->body(), "d");
  MessageBatch one(1, 5);
  EXPECT_EQ(one.make(id_of(5), 5, "alone")->body(), "alone");
}

// A message copied out of its block (a deferred REQ) stays whole after all
// its block-mates and the original are gone.
TEST(MessageBatch, AloneCopiesOutOfTheBlock) {
  MessageRef kept;
  {
    MessageBatch batch;
    std::vector<MessageRef> made;
    for (int i = 0; i < 10; ++i)
      made.push_back(batch.make(id_of(i), i, "body" + std::to_string(i)));
    kept = made[4].alone();
    EXPECT_NE(&*kept, &*made[4]);
    MessageRef standalone = MessageRef::create(id_of(99), 99, "x");
    EXPECT_EQ(&*standalone.alone(), &*standalone) << "already alone: shared, not copied";
  }
  EXPECT_EQ(kept->id(), id_of(4));
  EXPECT_EQ(kept->timestamp(), 4);
  EXPECT_EQ(kept->body(), "body4");
}

// Made on one thread, released on others at once (TSan: the block's count
// is the only shared state).
TEST(MessageBatch, ReleasedAcrossThreads) {
  std::vector<MessageRef> made;
  {
    MessageBatch batch(2000, 2000 * 100);
    for (int i = 0; i < 2000; ++i) made.push_back(batch.make(id_of(i), i, std::string(100, 'm')));
  }
  std::vector<MessageRef> left(made.begin(), made.begin() + 1000);
  std::vector<MessageRef> right(made.begin() + 1000, made.end());
  std::vector<MessageRef> shared = made;
  made.clear();
  std::thread a([&] { left.clear(); });
  std::thread b([&] { right.clear(); });
  std::thread c([&] { shared.clear(); });
  a.join();
  b.join();
  c.join();
  SUCCEED();
}

}  // namespace
}  // namespace nsq::nsqd
