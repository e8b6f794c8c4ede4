#include "file_sink.h"

#include <gtest/gtest.h>

#include "gunzip.h"
#include "test_logger.h"
#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::to_file {
namespace {

using namespace std::chrono_literals;

// 2024-01-31 14:00 UTC: year 2024 in every time zone.
Instant at(std::chrono::seconds from_start, int year = 2024) {
  const std::time_t base = year == 2024 ? 1706709600 : 1738245600;  // 2025-01-30
  return Instant{std::chrono::system_clock::from_time_t(base) + from_start,
                 std::chrono::steady_clock::time_point{} + from_start};
}

SinkSettings settings(const std::filesystem::path& dir) {
  SinkSettings s;
  s.work_dir = dir;
  s.output_dir = dir;
  s.name_template = "t<REV>.<DATETIME>.log";
  s.datetime_format = "%Y";
  s.exclusive = true;
  return s;
}

TEST(FileSink, SizeRotationOpensTheNextRevision) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  auto s = settings(dir.path());
  s.rotate_size = 10;
  FileSink sink(s, log.logger, "[t/c]");
  EXPECT_TRUE(sink.needs_rotation(at(0s)));
  ASSERT_TRUE(sink.rotate(at(0s)));
  EXPECT_EQ(sink.open_path(), dir.path() / "t-000000.2024.log");
  ASSERT_TRUE(sink.write_line("12345"));
  EXPECT_FALSE(sink.needs_rotation(at(1s)));
  ASSERT_TRUE(sink.write_line("67890"));  // 12 bytes > 10
  EXPECT_TRUE(sink.needs_rotation(at(1s)));
  ASSERT_TRUE(sink.rotate(at(1s)));
  EXPECT_EQ(sink.open_path(), dir.path() / "t-000001.2024.log");
  ASSERT_TRUE(sink.write_line("next"));
  ASSERT_TRUE(sink.close());
  EXPECT_FALSE(sink.is_open());
  EXPECT_EQ(testutil::read_file(dir.path() / "t-000000.2024.log"), "12345\n67890\n");
  EXPECT_EQ(testutil::read_file(dir.path() / "t-000001.2024.log"), "next\n");
  EXPECT_NE(log.sink->text().find("currently 12 bytes (> 10), rotating..."), std::string::npos);
}

TEST(FileSink, NewDatetimeStartsAtRevisionZero) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  auto s = settings(dir.path());
  s.rotate_size = 1;
  FileSink sink(s, log.logger, "[t/c]");
  ASSERT_TRUE(sink.rotate(at(0s)));
  ASSERT_TRUE(sink.write_line("a"));
  ASSERT_TRUE(sink.rotate(at(1s)));
  EXPECT_EQ(sink.open_path(), dir.path() / "t-000001.2024.log");
  EXPECT_TRUE(sink.needs_rotation(at(0s, 2025)));
  ASSERT_TRUE(sink.rotate(at(0s, 2025)));
  EXPECT_EQ(sink.open_path(), dir.path() / "t-000000.2025.log");
  EXPECT_NE(log.sink->text().find("new filename t<REV>.2025.log, rotating..."), std::string::npos);
}

TEST(FileSink, IntervalRotation) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  auto s = settings(dir.path());
  s.rotate_interval = 10s;
  FileSink sink(s, log.logger, "[t/c]");
  ASSERT_TRUE(sink.rotate(at(0s)));
  EXPECT_FALSE(sink.needs_rotation(at(10s)));
  EXPECT_TRUE(sink.needs_rotation(at(11s)));
  EXPECT_NE(log.sink->text().find("11s since last open, rotating..."), std::string::npos);
}

TEST(FileSink, ClosedFilesMoveFromWorkDirToOutputDir) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  auto s = settings(dir.path() / "work");
  s.output_dir = dir.path() / "out";
  s.gzip_level = 6;
  s.name_template = "t<REV>.<DATETIME>.log.gz";
  FileSink sink(s, log.logger, "[t/c]");
  ASSERT_TRUE(sink.rotate(at(0s)));
  EXPECT_EQ(sink.open_path(), dir.path() / "work" / "t-000000.2024.log.gz");
  ASSERT_TRUE(sink.write_line("a"));
  ASSERT_TRUE(sink.sync());
  ASSERT_TRUE(sink.write_line("b"));
  ASSERT_TRUE(sink.rotate(at(1s)));  // closes rev 0, opens rev 1
  ASSERT_TRUE(sink.write_line("c"));
  ASSERT_TRUE(sink.close());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() / "work"));
  EXPECT_EQ(
      testutil::gunzip_members(testutil::read_file(dir.path() / "out" / "t-000000.2024.log.gz")),
      "a\nb\n");
  EXPECT_EQ(
      testutil::gunzip_members(testutil::read_file(dir.path() / "out" / "t-000001.2024.log.gz")),
      "c\n");
}

TEST(FileSink, AppendModeWithoutRevision) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  auto s = settings(dir.path());
  s.name_template = "t.<DATETIME>.log";
  s.exclusive = false;
  testutil::write_file(dir.path() / "t.2024.log", "earlier\n");
  FileSink sink(s, log.logger, "[t/c]");
  ASSERT_TRUE(sink.rotate(at(0s)));
  ASSERT_TRUE(sink.write_line("later"));
  ASSERT_TRUE(sink.close());
  EXPECT_EQ(testutil::read_file(dir.path() / "t.2024.log"), "earlier\nlater\n");
}

}  // namespace
}  // namespace nsq::to_file
