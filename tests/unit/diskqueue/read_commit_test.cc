// Options::manual_read_commit: the persisted read position and the deletion
// of segments follow commit_read(), not reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "diskqueue/disk_queue.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

Options manual(const TempDir& dir) {
  Options o;
  o.name = "rc";
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 1024;
  o.manual_read_commit = true;
  return o;
}

std::string rec(int i) { return "record-" + std::to_string(i); }

TEST(ReadCommit, UncommittedReadsComeBackAfterCloseAndReopen) {
  TempDir dir;
  {
    auto q = DiskQueue::open(manual(dir));
    ASSERT_TRUE(q);
    for (int i = 0; i < 10; ++i) ASSERT_FALSE((*q)->put(rec(i)));
    std::vector<ReadRecord> read = (*q)->read_records(6, 1 << 20);
    ASSERT_EQ(read.size(), 6u);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(read[i].data, rec(i));
    ASSERT_FALSE((*q)->commit_read(read[2].token));  // records 0..2 done
    // depth: not yet read; uncommitted: read, not committed.
    EXPECT_EQ((*q)->depth(), 4);
    EXPECT_EQ((*q)->uncommitted(), 3);
    ASSERT_FALSE((*q)->close());
  }
  auto q = DiskQueue::open(manual(dir));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 7);  // 3..9 again
  EXPECT_EQ((*q)->uncommitted(), 0);
  for (int i = 3; i < 10; ++i) {
    auto r = (*q)->try_read_record();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->data, rec(i));
  }
  EXPECT_FALSE((*q)->try_read_record());
  EXPECT_EQ((*q)->depth(), 0);
  EXPECT_EQ((*q)->uncommitted(), 7);
}

TEST(ReadCommit, OutOfOrderAndRepeatedCommitsKeepTheFurthest) {
  TempDir dir;
  auto q = DiskQueue::open(manual(dir));
  ASSERT_TRUE(q);
  for (int i = 0; i < 5; ++i) ASSERT_FALSE((*q)->put(rec(i)));
  auto read = (*q)->read_records(5, 1 << 20);
  ASSERT_EQ(read.size(), 5u);
  ASSERT_FALSE((*q)->commit_read(read[3].token));
  ASSERT_FALSE((*q)->commit_read(read[1].token));  // behind: ignored
  ASSERT_FALSE((*q)->commit_read(read[3].token));  // again: ignored
  EXPECT_EQ((*q)->uncommitted(), 1);
  auto p = (*q)->positions();
  EXPECT_EQ(p.commit_file_num, read[3].token.file_num);
  EXPECT_EQ(p.commit_pos, read[3].token.pos);
  EXPECT_EQ(p.uncommitted, 1);
}

TEST(ReadCommit, TokenPastTheReaderIsRefusedAndOldEpochsAreIgnored) {
  TempDir dir;
  auto q = DiskQueue::open(manual(dir));
  ASSERT_TRUE(q);
  ASSERT_FALSE((*q)->put(rec(0)));
  ASSERT_FALSE((*q)->put(rec(1)));
  auto r = (*q)->try_read_record();
  ASSERT_TRUE(r);
  ReadToken forged = r->token;
  forged.seq += 1;
  EXPECT_EQ((*q)->commit_read(forged), errc::invalid_token);
  // empty() drops uncommitted reads; tokens from before it mean nothing.
  ASSERT_FALSE((*q)->empty());
  EXPECT_EQ((*q)->uncommitted(), 0);
  EXPECT_EQ((*q)->depth(), 0);
  EXPECT_FALSE((*q)->commit_read(r->token));
  EXPECT_EQ((*q)->uncommitted(), 0);
  ASSERT_FALSE((*q)->put(rec(2)));
  auto after = (*q)->try_read_record();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->data, rec(2));
  EXPECT_FALSE((*q)->commit_read(after->token));
  EXPECT_EQ((*q)->uncommitted(), 0);
}

TEST(ReadCommit, WithoutManualCommitReadsCommitThemselves) {
  TempDir dir;
  Options o = manual(dir);
  o.manual_read_commit = false;
  {
    auto q = DiskQueue::open(o);
    ASSERT_TRUE(q);
    for (int i = 0; i < 3; ++i) ASSERT_FALSE((*q)->put(rec(i)));
    auto r = (*q)->try_read_record();
    ASSERT_TRUE(r);
    EXPECT_EQ((*q)->uncommitted(), 0);
    EXPECT_FALSE((*q)->commit_read(r->token));  // a no-op
  }
  auto q = DiskQueue::open(o);
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 2);
  EXPECT_EQ(*(*q)->try_read(), rec(1));
}

TEST(ReadCommit, SegmentsAreDeletedOnlyBehindTheCommittedPosition) {
  TempDir dir;
  Options o = manual(dir);
  o.max_bytes_per_file = 2 * (4 + 8);  // two 8-byte records per segment
  auto q = DiskQueue::open(o);
  ASSERT_TRUE(q);
  for (int i = 0; i < 10; ++i) ASSERT_FALSE((*q)->put(rec(i)));  // "record-N": 8 bytes
  ASSERT_EQ((*q)->positions().write_file_num, 4);
  auto read = (*q)->read_records(10, 1 << 20);
  ASSERT_EQ(read.size(), 10u);
  ASSERT_FALSE((*q)->sync());
  for (int seg = 0; seg <= 4; ++seg) {
    EXPECT_TRUE(std::filesystem::exists((*q)->segment_path(seg))) << "segment " << seg;
  }
  // Record 3 is the last of segment 1: committing it finishes segments 0, 1.
  ASSERT_FALSE((*q)->commit_read(read[3].token));
  EXPECT_EQ((*q)->positions().commit_file_num, 2);
  EXPECT_EQ((*q)->positions().commit_pos, 0);
  ASSERT_FALSE((*q)->sync());
  EXPECT_FALSE(std::filesystem::exists((*q)->segment_path(0)));
  EXPECT_FALSE(std::filesystem::exists((*q)->segment_path(1)));
  EXPECT_TRUE(std::filesystem::exists((*q)->segment_path(2)));
  // Half of segment 2 committed: it stays.
  ASSERT_FALSE((*q)->commit_read(read[4].token));
  ASSERT_FALSE((*q)->sync());
  EXPECT_TRUE(std::filesystem::exists((*q)->segment_path(2)));
  ASSERT_FALSE((*q)->commit_read(read[9].token));
  ASSERT_FALSE((*q)->sync());
  for (int seg = 2; seg <= 3; ++seg) {
    EXPECT_FALSE(std::filesystem::exists((*q)->segment_path(seg))) << "segment " << seg;
  }
  EXPECT_TRUE(std::filesystem::exists((*q)->segment_path(4)));  // the write segment
  EXPECT_EQ((*q)->uncommitted(), 0);
  EXPECT_EQ((*q)->depth(), 0);
}

TEST(ReadCommit, MetaFileKeepsGoFormatWithCommittedPosition) {
  TempDir dir;
  {
    auto q = DiskQueue::open(manual(dir));
    ASSERT_TRUE(q);
    for (int i = 0; i < 4; ++i) ASSERT_FALSE((*q)->put(rec(i)));  // 12 bytes each
    auto read = (*q)->read_records(3, 1 << 20);
    ASSERT_EQ(read.size(), 3u);
    ASSERT_FALSE((*q)->commit_read(read[0].token));
    ASSERT_FALSE((*q)->close());
  }
  std::string meta;
  {
    std::FILE* f = std::fopen((dir.path() / "rc.diskqueue.meta.dat").c_str(), "r");
    ASSERT_NE(f, nullptr);
    char buf[256];
    std::size_t n = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    meta.assign(buf, n);
  }
  // depth = records after the committed position; read position = committed.
  EXPECT_EQ(meta, "3\n0,12\n0,48\n");
}

}  // namespace
}  // namespace nsq::diskqueue
