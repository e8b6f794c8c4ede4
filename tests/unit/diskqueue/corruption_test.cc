// Bad data is never returned: the segment is renamed *.bad, logged, and
// reading goes on with the next one.
#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
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

// A batch read takes the good records before a bad one, then the
// repair, then the next segment's: the same records as one at a time.
TEST(Corruption, BatchReadsStopAtTheBadRecordAndGoOnAfterTheRepair) {
  TempDir dir;
  CapturedLog log;
  std::string seg0 = record_bytes("ok") + record_bytes("fine") +
                     std::string("\x7f\xff\xff\xff", 4) + record_bytes("lost");
  std::string seg1 = record_bytes("next") + record_bytes("last");
  write_file(dir.path() / "c.diskqueue.000000.dat", seg0);
  write_file(dir.path() / "c.diskqueue.000001.dat", seg1);
  write_file(dir.path() / "c.diskqueue.meta.dat",
             "5\n0,0\n1," + std::to_string(seg1.size()) + "\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->read_batch(100, 1 << 20),
            (std::vector<std::string>{"ok", "fine", "next", "last"}));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "c.diskqueue.000000.dat.bad"));
  EXPECT_TRUE((*q)->read_batch(100, 1 << 20).empty());
  EXPECT_EQ((*q)->depth(), 0);
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

// Issue 23: a checkpoint whose read position is past its write position
// cannot say which of the two lies; every segment there is gets read from its
// start, as when the checkpoint does not parse, instead of being dropped.
TEST(Corruption, ReadPositionPastWritePositionReadsEverySegment) {
  TempDir dir;
  CapturedLog log;
  write_file(dir.path() / "c.diskqueue.000000.dat", record_bytes("zz"));
  write_file(dir.path() / "c.diskqueue.meta.dat", "5\n3,10\n0,6\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_TRUE(log.mentions("is past write position"));
  EXPECT_TRUE(log.mentions("c.diskqueue.meta.dat"));
  EXPECT_EQ((*q)->depth(), 1);
  ASSERT_FALSE((*q)->put("fresh"));
  expect_reads(**q, {"zz", "fresh"});
}

TEST(Corruption, ReadPositionPastWritePositionAcrossSegmentsLosesNothing) {
  TempDir dir;
  CapturedLog log;
  // Segments 3..5 (0..2 were read and deleted); the checkpoint's write
  // position fell behind its read position.
  std::vector<std::string> want;
  for (int seg = 3; seg <= 5; ++seg) {
    std::string bytes;
    for (int i = 0; i < 4; ++i) {
      want.push_back("s" + std::to_string(seg) + "r" + std::to_string(i));
      bytes += record_bytes(want.back());
    }
    char name[64];
    std::snprintf(name, sizeof name, "c.diskqueue.%06d.dat", seg);
    write_file(dir.path() / name, bytes);
  }
  write_file(dir.path() / "c.diskqueue.meta.dat", "12\n5,16\n4,8\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 12);
  ASSERT_FALSE((*q)->put("fresh"));
  want.push_back("fresh");
  expect_reads(**q, want);
}

TEST(Corruption, FileNumbersFarApartInTheCheckpointAreHandledQuickly) {
  // Found by the fuzzer: a checkpoint naming file 99999999 made recovery try
  // to delete a hundred million file names one by one.
  TempDir dir;
  CapturedLog log;
  write_file(dir.path() / "c.diskqueue.000000.dat", record_bytes("kept"));
  write_file(dir.path() / "c.diskqueue.meta.dat", "0\n99999999,0\n0,8\n");
  auto started = std::chrono::steady_clock::now();
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  ASSERT_FALSE((*q)->put("fresh"));
  expect_reads(**q, {"kept", "fresh"});
}

// Issue 23: the write segment ends before the checkpoint's write position
// (a power cut kept the meta file but not the data's tail). Every whole
// record before the damage is delivered; writing resumes after them.
TEST(Corruption, WriteSegmentCutShortDeliversItsWholeRecords) {
  for (std::size_t cut : {std::size_t{8}, std::size_t{3}, std::size_t{11}}) {
    SCOPED_TRACE("cut " + std::to_string(cut) + " bytes");
    TempDir dir;
    CapturedLog log;
    std::string seg;
    std::vector<std::string> want;
    for (int i = 0; i < 10; ++i) {
      want.push_back("rec" + std::to_string(i));  // 4 + 4 bytes each
      seg += record_bytes(want.back());
    }
    write_file(dir.path() / "c.diskqueue.000000.dat", seg.substr(0, seg.size() - cut));
    write_file(dir.path() / "c.diskqueue.meta.dat",
               "10\n0,0\n0," + std::to_string(seg.size()) + "\n");
    auto q = DiskQueue::open(options(dir, log));
    ASSERT_TRUE(q);
    EXPECT_TRUE(log.mentions("c.diskqueue.000000.dat")) << "the log names the file";
    std::size_t lost = (cut + 7) / 8;
    want.resize(want.size() - lost);
    EXPECT_EQ((*q)->depth(), static_cast<std::int64_t>(want.size()));
    ASSERT_FALSE((*q)->put("after"));
    want.push_back("after");
    expect_reads(**q, want);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "c.diskqueue.000000.dat.bad"));
  }
}

// The same with the read position inside the write segment.
TEST(Corruption, WriteSegmentCutShortBehindTheReadPosition) {
  TempDir dir;
  CapturedLog log;
  std::string seg;
  for (int i = 0; i < 10; ++i) seg += record_bytes("rec" + std::to_string(i));
  write_file(dir.path() / "c.diskqueue.000000.dat", seg.substr(0, 64));
  // Read position after record 5 (48), write position at 80: records 6 and 7
  // are still there, 8 and 9 are gone.
  write_file(dir.path() / "c.diskqueue.meta.dat", "4\n0,48\n0,80\n");
  auto q = DiskQueue::open(options(dir, log));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 2);
  expect_reads(**q, {"rec6", "rec7"});
  // And with the read position past what is left: nothing to read, no error.
  TempDir dir2;
  write_file(dir2.path() / "c.diskqueue.000000.dat", seg.substr(0, 40));
  write_file(dir2.path() / "c.diskqueue.meta.dat", "1\n0,72\n0,80\n");
  auto q2 = DiskQueue::open(options(dir2, log));
  ASSERT_TRUE(q2);
  EXPECT_EQ((*q2)->depth(), 0);
  ASSERT_FALSE((*q2)->put("after"));
  expect_reads(**q2, {"after"});
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
