#include "output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "gunzip.h"
#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::to_file {
namespace {

int open_new(const std::filesystem::path& p) {
  return ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
}

TEST(OutputFile, PlainLinesAreOnDiskAfterSync) {
  testutil::TempDir dir;
  const auto path = dir.path() / "a.log";
  OutputFile f(open_new(path), path, 0, 0);
  ASSERT_TRUE(f.write("one\n"));
  ASSERT_TRUE(f.write("two\n"));
  EXPECT_EQ(f.size(), 8);
  ASSERT_TRUE(f.sync());
  EXPECT_EQ(testutil::read_file(path), "one\ntwo\n");
  ASSERT_TRUE(f.write("three\n"));
  ASSERT_TRUE(f.close());
  EXPECT_EQ(testutil::read_file(path), "one\ntwo\nthree\n");
}

TEST(OutputFile, InitialSizeCountsForAppend) {
  testutil::TempDir dir;
  const auto path = dir.path() / "a.log";
  OutputFile f(open_new(path), path, 0, 100);
  ASSERT_TRUE(f.write("x\n"));
  EXPECT_EQ(f.size(), 102);
}

TEST(OutputFile, GzipMemberPerSyncAndSizeUncompressed) {
  testutil::TempDir dir;
  const auto path = dir.path() / "a.log.gz";
  OutputFile f(open_new(path), path, 6, 0);
  std::string expected;
  for (int sync = 0; sync < 3; ++sync) {
    for (int i = 0; i < 100; ++i) {
      std::string line = "s" + std::to_string(sync) + " line " + std::to_string(i) + "\n";
      ASSERT_TRUE(f.write(line));
      expected += line;
    }
    ASSERT_TRUE(f.sync());
    // After every sync the file is complete gzip holding all lines so far.
    EXPECT_EQ(testutil::gunzip_members(testutil::read_file(path)), expected);
  }
  EXPECT_EQ(f.size(), static_cast<int64_t>(expected.size()));
  // Syncs with nothing new add no member; close adds none either.
  ASSERT_TRUE(f.sync());
  ASSERT_TRUE(f.close());
  const std::string data = testutil::read_file(path);
  EXPECT_EQ(testutil::gzip_member_count(data), 3);
  EXPECT_EQ(testutil::gunzip_members(data), expected);
}

TEST(OutputFile, EmptyGzipFileIsStillValid) {
  testutil::TempDir dir;
  const auto path = dir.path() / "a.log.gz";
  OutputFile f(open_new(path), path, 6, 0);
  ASSERT_TRUE(f.close());
  EXPECT_EQ(testutil::gunzip_members(testutil::read_file(path)), "");
}

TEST(OutputFile, LargeWritesAreFlushedBeforeSync) {
  testutil::TempDir dir;
  const auto path = dir.path() / "big.log";
  OutputFile f(open_new(path), path, 0, 0);
  ASSERT_TRUE(f.write(std::string(200 * 1024, 'z')));
  EXPECT_GE(std::filesystem::file_size(path), 200u * 1024);
  ASSERT_TRUE(f.close());
}

TEST(OutputFile, WriteErrorIsReported) {
  testutil::TempDir dir;
  const auto path = dir.path() / "ro.log";
  testutil::write_file(path, "");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  OutputFile f(fd, path, 0, 0);
  ASSERT_TRUE(f.write("x\n"));  // buffered
  auto synced = f.sync();
  ASSERT_FALSE(synced);
  EXPECT_NE(synced.error().find("write " + path.string() + ": "), std::string::npos)
      << synced.error();
}

}  // namespace
}  // namespace nsq::to_file
