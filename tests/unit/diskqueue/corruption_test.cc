// Bad data is never returned: the segment is renamed *.bad, logged, and
// reading goes on with the next one.
#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <vector>

#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::record_bytes;
using testutil::TempDir;
using testutil::write_file;

struct CapturedLog {
  std::mutex mu;
  std::vector<std::string> lines;
  Logger logger() {
    return [this](LogLevel, std::string_view line) {
      std::lock_guard lock(mu);
      lines.emplace_back(line);
    };
  }
  bool mentions(const std::string& text) {
    std::lock_guard lock(mu);
    for (auto& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
};

Options options(const TempDir& dir, CapturedLog& log) {
  Options o;
  o.name = "c";
  o.data_path = dir.path();
  o.min_msg_size = 2;
  o.max_msg_size = 100;
  o.max_bytes_per_file = 1 << 20;
  o.logger = log.logger();
  return o;
}

std::string two_segments_meta(std::size_t seg1_size) {
  return "4\n0,0\n1," + std::to_string(seg1_size) + "\n";
}

void expect_reads(DiskQueue& q, std::vector<std::string> want) {
  for (auto& w : want) {
    auto r = q.try_read();
    ASSERT_TRUE(r) << "wanted " << w;
    EXPECT_EQ(*r, w);
  }
  EXPECT_FALSE(q.try_read());
}

TEST(Corruption, ImpossibleLengthRenamesSegmentAndContinues) {
  TempDir dir;
  CapturedLog log;
  std::string seg0 = record_bytes("ok") + std::string("\x7f\xff\xff\xff", 4) + record_bytes("lost");
  std::string seg1 = record_bytes("next") + record_bytes("last");
  write_file(dir.path() / "c.diskqueue.000000.dat", seg0);
  write_file(dir.path() / "c.diskqueue.000001.dat", seg1);
  write_file(dir.path() / "c.diskqueue.meta.dat", two_segments_meta(seg1.size()));
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  expect_reads(**q, {"ok", "next", "last"});
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "c.diskqueue.000000.dat.bad"));
  EXPECT_TRUE(log.mentions("c.diskqueue.000000.dat.bad"));
  EXPECT_EQ((*q)->depth(), 0);  // repaired when the reader met the writer
}

TEST(Corruption, LengthBelowMinimumIsCorruption) {
  TempDir dir;
  CapturedLog log;
  std::string seg0 = record_bytes("x");  // 1 byte < min 2
  std::string seg1 = record_bytes("good");
  write_file(dir.path() / "c.diskqueue.000000.dat", seg0);
  write_file(dir.path() / "c.diskqueue.000001.dat", seg1);
  write_file(dir.path() / "c.diskqueue.meta.dat", two_segments_meta(seg1.size()));
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  expect_reads(**q, {"good"});
}

TEST(Corruption, TruncatedSegmentIsSkipped) {
  TempDir dir;
  CapturedLog log;
  std::string seg0 = record_bytes("first") + record_bytes("truncated-record").substr(0, 9);
  std::string seg1 = record_bytes("after");
  write_file(dir.path() / "c.diskqueue.000000.dat", seg0);
  write_file(dir.path() / "c.diskqueue.000001.dat", seg1);
  write_file(dir.path() / "c.diskqueue.meta.dat", two_segments_meta(seg1.size()));
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  expect_reads(**q, {"first", "after"});
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "c.diskqueue.000000.dat.bad"));
  EXPECT_TRUE(log.mentions("truncated"));
}

TEST(Corruption, MissingSegmentIsSkipped) {
  TempDir dir;
  CapturedLog log;
  std::string seg1 = record_bytes("survivor");
  write_file(dir.path() / "c.diskqueue.000001.dat", seg1);
  write_file(dir.path() / "c.diskqueue.meta.dat", two_segments_meta(seg1.size()));
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  expect_reads(**q, {"survivor"});
}

TEST(Corruption, BadWriteSegmentMakesTheWriterMoveOn) {
  TempDir dir;
  CapturedLog log;
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  ASSERT_FALSE((*q)->put("aa"));
  ASSERT_FALSE((*q)->put("bb"));
  // Corrupt the second record's length in place.
  {
    std::string seg = testutil::read_file(dir.path() / "c.diskqueue.000000.dat");
    seg[6] = '\x7f';
    write_file(dir.path() / "c.diskqueue.000000.dat", seg);
  }
  EXPECT_EQ(*(*q)->try_read(), "aa");
  EXPECT_FALSE((*q)->try_read());
  EXPECT_EQ((*q)->positions().write_file_num, 1);
  ASSERT_FALSE((*q)->put("cc"));
  EXPECT_EQ(*(*q)->try_read(), "cc");
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "c.diskqueue.000000.dat.bad"));
}

TEST(Corruption, GarbageMetadataIsLoggedAndSurvived) {
  TempDir dir;
  CapturedLog log;
  write_file(dir.path() / "c.diskqueue.meta.dat", "not a number\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_TRUE(log.mentions("failed to parse metadata"));
  EXPECT_EQ((*q)->depth(), 0);
  ASSERT_FALSE((*q)->put("works"));
  EXPECT_EQ(*(*q)->try_read(), "works");
}

// Found by fuzz_diskqueue: a checkpoint that fails to parse after its
// positions (depth taken as 0) with records behind the write segment; reading
// them must not take depth below zero.
TEST(Corruption, UndercountedDepthNeverGoesNegative) {
  TempDir dir;
  CapturedLog log;
  write_file(dir.path() / "c.diskqueue.000000.dat", record_bytes("hello"));
  write_file(dir.path() / "c.diskqueue.000001.dat", record_bytes("world"));
  write_file(dir.path() / "c.diskqueue.meta.dat", "2\n0,0\n1,1J");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  while ((*q)->try_read()) EXPECT_GE((*q)->depth(), 0);
  EXPECT_EQ((*q)->depth(), 0);
  ASSERT_FALSE((*q)->put("after"));
  EXPECT_EQ((*q)->depth(), 1);
  EXPECT_EQ(*(*q)->try_read(), "after");
  EXPECT_EQ((*q)->depth(), 0);
}

TEST(Corruption, ReadPositionPastWritePositionStartsOver) {
  TempDir dir;
  CapturedLog log;
  write_file(dir.path() / "c.diskqueue.000000.dat", record_bytes("zz"));
  write_file(dir.path() / "c.diskqueue.meta.dat", "5\n3,10\n0,6\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 0);
  EXPECT_FALSE((*q)->try_read());
  ASSERT_FALSE((*q)->put("fresh"));
  EXPECT_EQ(*(*q)->try_read(), "fresh");
}

TEST(Corruption, FileNumbersFarApartInTheCheckpointAreHandledQuickly) {
  // Found by the fuzzer: a checkpoint naming file 99999999 made recovery try
  // to delete a hundred million file names one by one.
  TempDir dir;
  CapturedLog log;
  write_file(dir.path() / "c.diskqueue.000000.dat", record_bytes("gone"));
  write_file(dir.path() / "c.diskqueue.meta.dat", "0\n99999999,0\n0,8\n");
  auto started = std::chrono::steady_clock::now();
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "c.diskqueue.000000.dat"));
  ASSERT_FALSE((*q)->put("fresh"));
  expect_reads(**q, {"fresh"});
}

TEST(Corruption, RecordsPastTheCheckpointAreRecoveredAndNotOverwritten) {
  TempDir dir;
  CapturedLog log;
  // Meta says 1 record, the file holds 3 (written after the last sync).
  std::string seg0 = record_bytes("r1") + record_bytes("r2") + record_bytes("r3");
  write_file(dir.path() / "c.diskqueue.000000.dat", seg0);
  write_file(dir.path() / "c.diskqueue.meta.dat", "1\n0,0\n0,6\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 3);
  EXPECT_EQ((*q)->positions().write_file_num, 1);
  ASSERT_FALSE((*q)->put("r4"));
  expect_reads(**q, {"r1", "r2", "r3", "r4"});
}

// A roll whose checkpoint failed leaves segments past the one the meta file
// names (durable puts do not rewrite the meta file): they are read, counted,
// and never overwritten.
TEST(Corruption, SegmentsPastTheCheckpointWriteSegmentAreRecovered) {
  TempDir dir;
  CapturedLog log;
  write_file(dir.path() / "c.diskqueue.000000.dat", record_bytes("r1") + record_bytes("r2"));
  write_file(dir.path() / "c.diskqueue.000001.dat", record_bytes("r3") + record_bytes("r4"));
  write_file(dir.path() / "c.diskqueue.000002.dat", record_bytes("r5"));
  write_file(dir.path() / "c.diskqueue.meta.dat", "1\n0,6\n0,12\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 4);
  EXPECT_EQ((*q)->positions().write_file_num, 3);
  ASSERT_FALSE((*q)->put("r6"));
  expect_reads(**q, {"r2", "r3", "r4", "r5", "r6"});
  EXPECT_EQ((*q)->depth(), 0);
}

}  // namespace
}  // namespace nsq::diskqueue
