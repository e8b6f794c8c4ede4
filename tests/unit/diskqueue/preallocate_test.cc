// Options::preallocate_bytes: zeros ahead of the write position while the
// queue is open, and files exactly as NSQ writes them once a segment is
// finished, the queue closed, or a crash image reopened.
#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

namespace fs = std::filesystem;
using testutil::read_file;
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

constexpr std::int64_t kSegment = 8 * 1024;

Options options(const fs::path& dir, std::int64_t preallocate, CapturedLog* log = nullptr) {
  Options o;
  o.name = "p";
  o.data_path = dir;
  o.min_msg_size = 1;
  o.max_msg_size = 1000;
  o.max_bytes_per_file = kSegment;
  o.preallocate_bytes = preallocate;
  if (log) o.logger = log->logger();
  return o;
}

std::string record(int i) { return "record-" + std::to_string(i) + std::string(i % 97, 'r'); }

std::map<std::string, std::string> files_in(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out[e.path().filename().string()] = read_file(e.path());
  }
  return out;
}

fs::path segment(const fs::path& dir, int n) {
  char name[32];
  std::snprintf(name, sizeof name, "p.diskqueue.%06d.dat", n);
  return dir / name;
}

// The bytes records 0..n-1 take in segment files, written as NSQ does.
std::int64_t records_size(int from, int to) {
  std::int64_t n = 0;
  for (int i = from; i < to; ++i) n += 4 + static_cast<std::int64_t>(record(i).size());
  return n;
}

TEST(Preallocate, ZerosAheadWhileOpenAndNsqFilesOnceFinishedOrClosed) {
  TempDir plain_dir, pre_dir;
  auto plain = DiskQueue::open(options(plain_dir.path(), 0));
  auto pre = DiskQueue::open(options(pre_dir.path(), 4096));
  ASSERT_TRUE(plain && pre);
  constexpr int kRecords = 300;  // several segments
  for (int i = 0; i < kRecords; ++i) {
    ASSERT_FALSE((*plain)->put(record(i), Durability::fsync));
    ASSERT_FALSE((*pre)->put(record(i), Durability::fsync));
    if (i == 2) {
      // Open: the write segment runs ahead of its records, in zeros (filled
      // once, by the first write).
      const auto written = records_size(0, 3);
      const auto size = static_cast<std::int64_t>(fs::file_size(segment(pre_dir.path(), 0)));
      ASSERT_EQ(size, records_size(0, 1) + 4096);
      EXPECT_TRUE(read_file(segment(pre_dir.path(), 0)).substr(static_cast<std::size_t>(written)) ==
                  std::string(static_cast<std::size_t>(size - written), '\0'));
    }
  }
  // Reading while open never runs into the zeros.
  for (int i = 0; i < kRecords / 2; ++i) {
    auto r = (*pre)->try_read();
    ASSERT_TRUE(r);
    ASSERT_EQ(*r, record(i));
  }
  for (int i = 0; i < kRecords / 2; ++i) ASSERT_TRUE((*plain)->try_read());
  // A finished segment already has its exact size; the write segment has not.
  ASSERT_TRUE(fs::exists(segment(pre_dir.path(), 2)));
  EXPECT_TRUE(read_file(segment(pre_dir.path(), 1)) == read_file(segment(plain_dir.path(), 1)));
  EXPECT_GT(fs::file_size(segment(pre_dir.path(), 2)), fs::file_size(segment(plain_dir.path(), 2)));
  ASSERT_FALSE((*plain)->close());
  ASSERT_FALSE((*pre)->close());
  EXPECT_EQ(files_in(pre_dir.path()), files_in(plain_dir.path()));

  auto reopened = DiskQueue::open(options(pre_dir.path(), 4096));
  ASSERT_TRUE(reopened);
  for (int i = kRecords / 2; i < kRecords; ++i) {
    auto r = (*reopened)->try_read();
    ASSERT_TRUE(r);
    ASSERT_EQ(*r, record(i));
  }
  EXPECT_FALSE((*reopened)->try_read());
}

TEST(Preallocate, ACrashImageLosesTheZerosAndNoRecord) {
  TempDir dir, image;
  auto q = DiskQueue::open(options(dir.path(), 4096));
  ASSERT_TRUE(q);
  ASSERT_FALSE((*q)->put("checkpointed", Durability::fsync));
  ASSERT_FALSE((*q)->sync());  // the meta file names the write position here
  for (int i = 0; i < 5; ++i) ASSERT_FALSE((*q)->put(record(i), Durability::fsync));
  // What a SIGKILL leaves: the files as they are, zeros and a stale checkpoint.
  for (const auto& e : fs::directory_iterator(dir.path())) {
    fs::copy_file(e.path(), image.path() / e.path().filename());
  }
  const auto records_end = 4 + 12 + records_size(0, 5);
  ASSERT_GT(static_cast<std::int64_t>(fs::file_size(segment(image.path(), 0))), records_end);

  CapturedLog log;
  auto reopened = DiskQueue::open(options(image.path(), 0, &log));
  ASSERT_TRUE(reopened);
  EXPECT_EQ(static_cast<std::int64_t>(fs::file_size(segment(image.path(), 0))), records_end);
  EXPECT_TRUE(log.mentions("preallocated bytes after the last record of"));
  EXPECT_EQ((*reopened)->depth(), 6);
  EXPECT_EQ((*reopened)->try_read(), std::optional<std::string>("checkpointed"));
  for (int i = 0; i < 5; ++i) EXPECT_EQ((*reopened)->try_read(), std::optional(record(i)));
  EXPECT_FALSE((*reopened)->try_read());
  for (const auto& e : fs::directory_iterator(image.path())) {
    EXPECT_NE(e.path().extension(), ".bad") << e.path() << ": nothing is bad";
  }
}

// A crash image past the checkpoint: "ok" is checkpointed (write position 6),
// "more" was put after it, then `tail`.
std::unique_ptr<DiskQueue> open_crash_image(const fs::path& dir, const std::string& tail,
                                            CapturedLog& log) {
  write_file(dir / "p.diskqueue.meta.dat", "1\n0,0\n0,6\n");
  write_file(segment(dir, 0), record_bytes("ok") + record_bytes("more") + tail);
  auto q = DiskQueue::open(options(dir, 0, &log));
  if (!q) return nullptr;
  return std::move(*q);
}

void expect_ok_more_and_nothing_bad(DiskQueue& q, const fs::path& dir) {
  EXPECT_EQ(q.depth(), 2);
  EXPECT_EQ(q.try_read(), std::optional<std::string>("ok"));
  EXPECT_EQ(q.try_read(), std::optional<std::string>("more"));
  EXPECT_FALSE(q.try_read());
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_NE(e.path().extension(), ".bad") << e.path() << ": nothing is bad";
  }
}

TEST(Preallocate, AGroupCutShortBehindItsZeroFirstHeaderIsCut) {
  // flush writes a group's first header last: a crash between the two
  // writes, or inside the first, leaves a zero header with part of the group
  // behind it, and zeros after.
  TempDir dir;
  std::string tail(4, '\0');
  tail += "ial-body";
  tail += record_bytes("second-of-the-group").substr(0, 11);
  tail += std::string(100, '\0');
  CapturedLog log;
  auto q = open_crash_image(dir.path(), tail, log);
  ASSERT_TRUE(q);
  EXPECT_EQ(fs::file_size(segment(dir.path(), 0)), 6u + 8u);
  EXPECT_TRUE(log.mentions("cut " + std::to_string(tail.size()) +
                           " bytes of an unfinished write after the last record of"));
  expect_ok_more_and_nothing_bad(*q, dir.path());
}

TEST(Preallocate, ARecordRunningPastTheFileEndIsCut) {
  // Without preallocation a write cut short leaves the file ending inside
  // its record, or inside its header.
  const std::string cut_short = record_bytes(std::string(300, 'c'));  // length 00 00 01 2c
  for (std::size_t keep : {3u, 9u, 303u}) {
    TempDir dir;
    CapturedLog log;
    auto q = open_crash_image(dir.path(), cut_short.substr(0, keep), log);
    ASSERT_TRUE(q);
    EXPECT_EQ(fs::file_size(segment(dir.path(), 0)), 6u + 8u);
    EXPECT_TRUE(log.mentions("bytes of an unfinished write after the last record of"));
    expect_ok_more_and_nothing_bad(*q, dir.path());
  }
}

TEST(Preallocate, AnInvalidNonzeroLengthIsLeftForTheReader) {
  // No write of ours leaves a nonzero length outside [min, max]: that is
  // corruption, which stays for the reader to report.
  TempDir dir;
  std::string tail = std::string("\xff\xff\xff\xff") + std::string(60, '\0');
  CapturedLog log;
  auto q = open_crash_image(dir.path(), tail, log);
  ASSERT_TRUE(q);
  EXPECT_FALSE(log.mentions("cut "));
  EXPECT_EQ(fs::file_size(segment(dir.path(), 0)), 6u + 8u + 64u);
  EXPECT_EQ(q->try_read(), std::optional<std::string>("ok"));
  EXPECT_EQ(q->try_read(), std::optional<std::string>("more"));
  EXPECT_FALSE(q->try_read());
  EXPECT_TRUE(log.mentions("invalid record size"));
}

TEST(Preallocate, OffWhenAZeroHeaderCouldBeARecord) {
  TempDir dir;
  auto o = options(dir.path(), 4096);
  o.min_msg_size = 0;
  auto q = DiskQueue::open(std::move(o));
  ASSERT_TRUE(q);
  ASSERT_FALSE((*q)->put("", Durability::fsync));
  ASSERT_FALSE((*q)->put("x", Durability::fsync));
  EXPECT_EQ(fs::file_size(segment(dir.path(), 0)), 4u + 5u);
}

}  // namespace
}  // namespace nsq::diskqueue
