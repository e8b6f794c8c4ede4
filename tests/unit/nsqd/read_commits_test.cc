#include "core/read_commits.h"

#include <gtest/gtest.h>

namespace nsq::nsqd {
namespace {

diskqueue::ReadToken token(std::uint64_t seq) {
  diskqueue::ReadToken t;
  t.seq = seq;
  t.pos = static_cast<std::int64_t>(seq) * 100;
  return t;
}

TEST(ReadCommits, CommitsOnlyTheFinishedPrefix) {
  ReadCommits c;
  for (std::uint64_t s = 1; s <= 4; ++s) c.add(token(s));
  EXPECT_FALSE(c.finish(3)) << "1 and 2 are still out";
  EXPECT_FALSE(c.finish(2));
  auto first = c.finish(1);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->seq, 3u) << "1..3 done: commit through 3";
  EXPECT_EQ(c.outstanding(), 1u);
  auto last = c.finish(4);
  ASSERT_TRUE(last);
  EXPECT_EQ(last->seq, 4u);
  EXPECT_EQ(c.outstanding(), 0u);
}

TEST(ReadCommits, UnknownAndRepeatedFinishesAreIgnored) {
  ReadCommits c;
  c.add(token(7));
  c.add(token(8));
  EXPECT_FALSE(c.finish(99));
  EXPECT_FALSE(c.finish(8));
  EXPECT_FALSE(c.finish(8));
  ASSERT_TRUE(c.finish(7));
  EXPECT_FALSE(c.finish(7)) << "already committed";
}

TEST(ReadCommits, ClearForgetsEverything) {
  ReadCommits c;
  c.add(token(1));
  c.add(token(2));
  c.clear();
  EXPECT_EQ(c.outstanding(), 0u);
  EXPECT_FALSE(c.finish(1));
}

}  // namespace
}  // namespace nsq::nsqd
