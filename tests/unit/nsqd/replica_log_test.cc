// The replica log over real files in a temporary directory: records and
// their framing, appends and reads across segments, what opening repairs,
// truncation and trimming, the leader epochs.
#include "cluster/replica_log.h"

#include <gtest/gtest.h>

#include <fstream>

#include "nsqd/errc.h"
#include "testutil/temp_dir.h"

namespace nsq::nsqd::cluster {
namespace {

std::string framed(const std::vector<LogRecord>& records) {
  std::string out;
  for (const auto& r : records) append_record(out, r);
  return out;
}

LogRecord record(std::uint32_t epoch, std::string message, std::int64_t defer = 0) {
  return LogRecord{epoch, defer, std::move(message)};
}

std::vector<LogRecord> parsed(std::string_view bytes) {
  auto p = parse_records(bytes, 1 << 20);
  EXPECT_FALSE(p.corrupt);
  EXPECT_EQ(p.consumed, bytes.size());
  return p.records;
}

TEST(LogRecord, FramesAndParsesBack) {
  const std::vector<LogRecord> in = {record(1, "a"), record(7, std::string(300, 'x'), 1234567),
                                     record(2, "")};
  const std::string bytes = framed(in);
  EXPECT_EQ(bytes.size(), 3 * kLogRecordHeader + 1 + 300);
  EXPECT_EQ(parsed(bytes), in);
}

TEST(LogRecord, StopsAtAPartialRecordAndFlagsACorruptOne) {
  const std::string bytes = framed({record(1, "first"), record(1, "second")});
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const auto p = parse_records(std::string_view(bytes).substr(0, cut), 1 << 20);
    EXPECT_FALSE(p.corrupt) << cut;
    EXPECT_EQ(p.records.size(), cut >= kLogRecordHeader + 5 ? 1u : 0u) << cut;
  }
  std::string flipped = bytes;
  flipped[kLogRecordHeader + 5 + kLogRecordHeader + 2] ^= 1;  // in the second message
  auto p = parse_records(flipped, 1 << 20);
  EXPECT_TRUE(p.corrupt);
  EXPECT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.consumed, kLogRecordHeader + 5);
  // A size beyond the limit is corrupt at once, not a record to wait for.
  EXPECT_TRUE(parse_records(bytes, kLogRecordHeader + 2).corrupt);
}

class ReplicaLogTest : public ::testing::Test {
 protected:
  std::unique_ptr<ReplicaLog> open(std::uint64_t segment_bytes = 1 << 20,
                                   std::string* repaired = nullptr) {
    auto opened = ReplicaLog::open({dir_.path(), "orders", segment_bytes, 1 << 16});
    EXPECT_TRUE(opened) << (opened ? "" : opened.error().message());
    if (!opened) return nullptr;
    if (repaired) *repaired = opened->repaired;
    return std::move(opened->log);
  }

  std::vector<std::string> segment_files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".log")) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  testutil::TempDir dir_;
};

TEST_F(ReplicaLogTest, AppendsReadsAndSyncs) {
  auto log = open();
  ASSERT_TRUE(log);
  EXPECT_EQ(log->start(), 0u);
  EXPECT_EQ(log->end(), 0u);
  const std::string a = framed({record(1, "one"), record(1, "two")});
  const std::string b = framed({record(1, "three")});
  EXPECT_EQ(log->append(a), a.size());
  EXPECT_EQ(log->append(b), a.size() + b.size());
  EXPECT_EQ(log->durable_end(), 0u);
  ASSERT_FALSE(log->sync());
  EXPECT_EQ(log->durable_end(), a.size() + b.size());

  EXPECT_EQ(log->read(0, 1 << 20), a + b);
  EXPECT_EQ(log->read(a.size(), 1 << 20), b);
  EXPECT_EQ(log->read(a.size() + b.size(), 1 << 20), "");
  // Whole records only, and at least one.
  EXPECT_EQ(parsed(*log->read(0, 1)).size(), 1u);
  EXPECT_EQ(parsed(*log->read(0, kLogRecordHeader + 3 + 2)).size(), 1u);
  EXPECT_EQ(log->read(a.size() + b.size() + 1, 10).error(), errc::log_out_of_range);
  EXPECT_EQ(segment_files(), std::vector<std::string>{"orders.replica.00000000000000000000.log"});
}

TEST_F(ReplicaLogTest, RollsSegmentsAndReadsAcrossThem) {
  const std::string one = framed({record(1, std::string(100, 'a'))});
  auto log = open(3 * one.size());
  ASSERT_TRUE(log);
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(log->append(one));
  EXPECT_EQ(segment_files().size(), 3u);
  EXPECT_EQ(log->end(), 7 * one.size());
  // Rolling made the full segments durable.
  EXPECT_GE(log->durable_end(), 6 * one.size());
  // A read stops at its segment's end.
  EXPECT_EQ(log->read(2 * one.size(), 1 << 20)->size(), one.size());
  EXPECT_EQ(log->read(3 * one.size(), 1 << 20)->size(), 3 * one.size());

  log.reset();
  log = open(3 * one.size());
  ASSERT_TRUE(log);
  EXPECT_EQ(log->end(), 7 * one.size());
  EXPECT_EQ(log->read(6 * one.size(), 1 << 20), one);

  // Trimming deletes whole segments below the offset, never the last.
  ASSERT_FALSE(log->trim(4 * one.size()));
  EXPECT_EQ(log->start(), 3 * one.size());
  EXPECT_EQ(log->read(0, 10).error(), errc::log_out_of_range);
  ASSERT_FALSE(log->trim(100 * one.size()));
  EXPECT_EQ(log->start(), 6 * one.size());
  EXPECT_EQ(segment_files().size(), 1u);
}

TEST_F(ReplicaLogTest, OpeningCutsATornTail) {
  const std::string whole = framed({record(1, "kept"), record(1, "kept too")});
  const std::string torn = framed({record(1, "half written")});
  {
    auto log = open();
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append(whole));
    ASSERT_FALSE(log->sync());
  }
  {
    std::ofstream f(dir_.path() / "orders.replica.00000000000000000000.log",
                    std::ios::binary | std::ios::app);
    f << torn.substr(0, torn.size() - 3);
  }
  std::string repaired;
  auto log = open(1 << 20, &repaired);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->end(), whole.size());
  EXPECT_NE(repaired.find("cut"), std::string::npos) << repaired;
  EXPECT_EQ(log->read(0, 1 << 20), whole);
  // Appending goes on from the repaired end.
  EXPECT_EQ(log->append(torn), whole.size() + torn.size());
}

TEST_F(ReplicaLogTest, OpeningCutsAtACorruptRecord) {
  const std::string bytes = framed({record(1, "good"), record(1, "bad"), record(1, "after")});
  {
    auto log = open();
    ASSERT_TRUE(log);
    ASSERT_TRUE(log->append(bytes));
  }
  std::string flipped = bytes;
  flipped[kLogRecordHeader + 4 + kLogRecordHeader] ^= 0x40;
  {
    std::ofstream f(dir_.path() / "orders.replica.00000000000000000000.log",
                    std::ios::binary | std::ios::trunc);
    f << flipped;
  }
  std::string repaired;
  auto log = open(1 << 20, &repaired);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->end(), kLogRecordHeader + 4);
  EXPECT_FALSE(repaired.empty());
}

// What a crash leaves: the files as they are while the log is open.
std::filesystem::path crash_copy(const std::filesystem::path& from, const testutil::TempDir& to) {
  std::filesystem::copy(
      from, to.path(),
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  return to.path();
}

TEST_F(ReplicaLogTest, AppendsOverZerosFilledAheadAndReopensAfterACrashWithoutARepair) {
  const std::string segment = "orders.replica.00000000000000000000.log";
  const std::string bytes = framed({record(1, "one"), record(1, "two")});
  auto log = open();
  ASSERT_TRUE(log);
  ASSERT_TRUE(log->append(bytes));
  ASSERT_FALSE(log->sync());
  // The file runs ahead of the records, in zeros: the fsync of the next
  // append commits no new file size.
  EXPECT_GE(std::filesystem::file_size(dir_.path() / segment), bytes.size() + (1 << 19));

  testutil::TempDir crashed;
  auto opened = ReplicaLog::open({crash_copy(dir_.path(), crashed), "orders", 1 << 20, 1 << 16});
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->repaired, "") << "zeros after the last record are no torn tail";
  EXPECT_EQ(opened->log->end(), bytes.size());
  EXPECT_EQ(opened->log->read(0, 1 << 20), bytes);
  const std::string more = framed({record(1, "three")});
  EXPECT_EQ(opened->log->append(more), bytes.size() + more.size());
  EXPECT_EQ(opened->log->read(0, 1 << 20), bytes + more);
  opened->log.reset();
  EXPECT_EQ(std::filesystem::file_size(crashed.path() / segment), bytes.size() + more.size())
      << "a closed log is its records alone";

  log.reset();
  EXPECT_EQ(std::filesystem::file_size(dir_.path() / segment), bytes.size());
}

TEST_F(ReplicaLogTest, ARecordTornOverTheZerosIsCut) {
  const std::string whole = framed({record(1, "kept")});
  const std::string torn = framed({record(1, std::string(100, 't'))});
  auto log = open();
  ASSERT_TRUE(log);
  ASSERT_TRUE(log->append(whole));
  testutil::TempDir crashed;
  crash_copy(dir_.path(), crashed);
  {
    // Half a record over the zeros: the rest of its page never reached the disk.
    std::fstream f(crashed.path() / "orders.replica.00000000000000000000.log",
                   std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(whole.size()));
    f << torn.substr(0, torn.size() / 2);
  }
  auto opened = ReplicaLog::open({crashed.path(), "orders", 1 << 20, 1 << 16});
  ASSERT_TRUE(opened);
  EXPECT_NE(opened->repaired.find("cut"), std::string::npos) << opened->repaired;
  EXPECT_EQ(opened->log->end(), whole.size());
  EXPECT_EQ(std::filesystem::file_size(crashed.path() / "orders.replica.00000000000000000000.log"),
            whole.size());
}

TEST_F(ReplicaLogTest, ARolledSegmentIsCutToItsRecords) {
  const std::string one = framed({record(1, std::string(100, 'r'))});
  auto log = open(3 * one.size());
  ASSERT_TRUE(log);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(log->append(one));
  ASSERT_EQ(segment_files().size(), 2u);
  EXPECT_EQ(std::filesystem::file_size(dir_.path() / segment_files()[0]), 3 * one.size());
  // The fill stops at the segment size: a roll never writes more zeros
  // than the segment could hold.
  EXPECT_EQ(std::filesystem::file_size(dir_.path() / segment_files()[1]), 3 * one.size());
}

TEST_F(ReplicaLogTest, OpeningDropsSegmentsAfterAGap) {
  const std::string one = framed({record(1, std::string(50, 'z'))});
  {
    auto log = open(2 * one.size());
    ASSERT_TRUE(log);
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(log->append(one));
  }
  ASSERT_EQ(segment_files().size(), 3u);
  std::filesystem::remove(dir_.path() / segment_files()[1]);
  std::string repaired;
  auto log = open(2 * one.size(), &repaired);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->end(), 2 * one.size());
  EXPECT_EQ(segment_files().size(), 1u);
  EXPECT_NE(repaired.find("not contiguous"), std::string::npos) << repaired;
}

TEST_F(ReplicaLogTest, EpochsSayWhereEachEnded) {
  auto log = open();
  ASSERT_TRUE(log);
  EXPECT_EQ(log->last_epoch(), 0u);
  ASSERT_FALSE(log->begin_epoch(1));
  const std::string e1 = framed({record(1, "a"), record(1, "b")});
  ASSERT_TRUE(log->append(e1));
  ASSERT_FALSE(log->begin_epoch(3));
  const std::string e3 = framed({record(3, "c")});
  ASSERT_TRUE(log->append(e3));
  EXPECT_EQ(log->last_epoch(), 3u);
  EXPECT_EQ(log->end_of_epoch(1), e1.size());
  EXPECT_EQ(log->end_of_epoch(2), e1.size()) << "2 never led here: it ended where 3 began";
  EXPECT_EQ(log->end_of_epoch(3), e1.size() + e3.size());
  EXPECT_EQ(log->end_of_epoch(0), 0u);
  EXPECT_FALSE(log->begin_epoch(3)) << "the same epoch again is no change";
  EXPECT_EQ(log->begin_epoch(2), errc::log_out_of_range);

  // The epochs survive a restart.
  log.reset();
  log = open();
  ASSERT_TRUE(log);
  EXPECT_EQ(log->last_epoch(), 3u);
  EXPECT_EQ(log->end_of_epoch(1), e1.size());

  // A follower truncating to where epoch 1 ended loses epoch 3.
  ASSERT_FALSE(log->truncate(e1.size()));
  EXPECT_EQ(log->end(), e1.size());
  EXPECT_EQ(log->durable_end(), e1.size());
  EXPECT_EQ(log->last_epoch(), 1u);
  log.reset();
  log = open();
  ASSERT_TRUE(log);
  EXPECT_EQ(log->end(), e1.size());
  EXPECT_EQ(log->last_epoch(), 1u);
}

TEST_F(ReplicaLogTest, TruncateRemovesLaterSegments) {
  const std::string one = framed({record(1, std::string(80, 'q'))});
  auto log = open(2 * one.size());
  ASSERT_TRUE(log);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(log->append(one));
  ASSERT_EQ(segment_files().size(), 3u);
  ASSERT_FALSE(log->truncate(one.size()));
  EXPECT_EQ(segment_files().size(), 1u);
  EXPECT_EQ(log->end(), one.size());
  EXPECT_EQ(log->truncate(5 * one.size()), errc::log_out_of_range);
  EXPECT_EQ(log->append(one), 2 * one.size());
}

TEST_F(ReplicaLogTest, TrimKeepsTheSegmentsFromAnOffsetOn) {
  const std::string one = framed({record(1, std::string(80, 'q'))});
  auto log = open(2 * one.size());
  ASSERT_TRUE(log);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(log->append(one));
  ASSERT_FALSE(log->trim(3 * one.size()));  // the second segment holds records 2 and 3
  EXPECT_EQ(log->start(), 2 * one.size());
  EXPECT_EQ(segment_files().size(), 2u);
  EXPECT_EQ(log->read(0, 1 << 16).error(), errc::log_out_of_range);
  EXPECT_EQ(parsed(*log->read(2 * one.size(), 1 << 16)).size(), 2u);
  ASSERT_FALSE(log->trim(100 * one.size()));
  EXPECT_EQ(segment_files().size(), 1u) << "never the last segment";
  log.reset();
  log = open(2 * one.size());
  ASSERT_TRUE(log);
  EXPECT_EQ(log->start(), 4 * one.size()) << "a trimmed log opens where it starts";
  EXPECT_EQ(log->end(), 5 * one.size());
}

TEST_F(ReplicaLogTest, RestartBeginsAnEmptyLogAtAnOffset) {
  const std::string one = framed({record(3, std::string(80, 'q'))});
  auto log = open(2 * one.size());
  ASSERT_TRUE(log);
  ASSERT_FALSE(log->begin_epoch(3));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(log->append(one));
  EXPECT_EQ(log->epoch_at(one.size()), 3u);
  EXPECT_EQ(log->epoch_at(0), 3u);
  ASSERT_FALSE(log->restart_at(1000, 3));
  EXPECT_EQ(log->start(), 1000u);
  EXPECT_EQ(log->end(), 1000u);
  EXPECT_EQ(log->last_epoch(), 3u) << "the leader's epoch at the new start";
  EXPECT_EQ(log->epoch_at(999), 0u);
  EXPECT_EQ(segment_files(), std::vector<std::string>{"orders.replica.00000000000000001000.log"});
  ASSERT_FALSE(log->begin_epoch(4));
  EXPECT_EQ(log->append(one), 1000 + one.size());
  log.reset();
  log = open(2 * one.size());
  ASSERT_TRUE(log);
  EXPECT_EQ(log->start(), 1000u);
  EXPECT_EQ(log->end(), 1000 + one.size());
  EXPECT_EQ(log->last_epoch(), 4u);
  EXPECT_EQ(log->end_of_epoch(3), 1000u);
  EXPECT_EQ(log->epoch_at(1000), 4u);
}

}  // namespace
}  // namespace nsq::nsqd::cluster
