// ReadCommits alone (a private class of libdiskqueue): the bookkeeping
// behind commit_read(), without files.
#include "read_commits.h"

#include <gtest/gtest.h>

namespace nsq::diskqueue {
namespace {

TEST(ReadCommits, WithoutManualCommitEveryReadCommitsItself) {
  ReadCommits c(false);
  c.start_at(3, 100);
  ReadToken t1 = c.record_read(3, 130);
  ReadToken t2 = c.record_read(3, 160);
  EXPECT_EQ(t1.seq, 1u);
  EXPECT_EQ(t2.seq, 2u);
  EXPECT_EQ(c.uncommitted(), 0);
  EXPECT_FALSE(c.segment_finished(3));
}

TEST(ReadCommits, CommitMovesToTheFurthestTokenAndIgnoresOlderOnes) {
  ReadCommits c(true);
  c.start_at(0, 0);
  ReadToken t1 = c.record_read(0, 30);
  ReadToken t2 = c.record_read(0, 60);
  ReadToken t3 = c.record_read(0, 90);
  EXPECT_EQ(c.uncommitted(), 3);

  auto done = c.commit(t2);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->records, 2);
  EXPECT_FALSE(done->left_segment);
  EXPECT_EQ(c.pos(), 60);
  EXPECT_EQ(c.uncommitted(), 1);

  done = c.commit(t1);  // behind the commit: nothing changes
  ASSERT_TRUE(done);
  EXPECT_EQ(done->records, 0);
  EXPECT_EQ(c.pos(), 60);

  done = c.commit(t3);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->records, 1);
  EXPECT_EQ(c.uncommitted(), 0);
}

TEST(ReadCommits, ATokenPastTheReaderIsRefused) {
  ReadCommits c(true);
  c.record_read(0, 30);
  ReadToken forged{0, 60, 2, 0};
  auto done = c.commit(forged);
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error(), make_error_code(errc::invalid_token));
}

TEST(ReadCommits, ALeftSegmentIsPassedOnceItsRecordsAreCommitted) {
  ReadCommits c(true);
  c.start_at(5, 0);
  ReadToken last_of_5 = c.record_read(5, 40);
  EXPECT_FALSE(c.segment_finished(5));  // its record is not committed yet
  ReadToken first_of_6 = c.record_read(6, 25);

  auto done = c.commit(last_of_5);
  ASSERT_TRUE(done);
  EXPECT_TRUE(done->left_segment);
  EXPECT_EQ(c.file_num(), 6);
  EXPECT_EQ(c.pos(), 0);

  done = c.commit(first_of_6);
  ASSERT_TRUE(done);
  EXPECT_FALSE(done->left_segment);
  EXPECT_EQ(c.pos(), 25);
}

TEST(ReadCommits, ASegmentLeftWithEverythingCommittedIsPassedAtOnce) {
  ReadCommits c(true);
  c.start_at(1, 0);
  ASSERT_TRUE(c.commit(c.record_read(1, 40)));
  EXPECT_TRUE(c.segment_finished(1));
  EXPECT_EQ(c.file_num(), 2);
  EXPECT_EQ(c.pos(), 0);
}

TEST(ReadCommits, ResetForgetsUncommittedReadsAndTheirTokens) {
  ReadCommits c(true);
  ReadToken old = c.record_read(0, 30);
  c.reset(4, 0);
  EXPECT_EQ(c.uncommitted(), 0);
  EXPECT_EQ(c.file_num(), 4);
  auto done = c.commit(old);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->records, 0);
  EXPECT_EQ(c.file_num(), 4);
  ReadToken fresh = c.record_read(4, 30);
  EXPECT_EQ(fresh.epoch, old.epoch + 1);
}

}  // namespace
}  // namespace nsq::diskqueue
