#include "revision_opener.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_mover.h"
#include "test_logger.h"
#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::to_file {
namespace {

OpenPlan plan_in(const std::filesystem::path& dir, std::string name) {
  OpenPlan p;
  p.work_dir = dir;
  p.output_dir = dir;
  p.name = std::move(name);
  return p;
}

TEST(RevisionOpener, ExclusiveSkipsExistingRevisions) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  testutil::write_file(dir.path() / "t-000000.log", "old");
  testutil::write_file(dir.path() / "t-000001.log", "old");
  auto p = plan_in(dir.path(), "t<REV>.log");
  p.exclusive = true;
  auto opened = open_next_revision(p, *log.logger, "[t/c]");
  ASSERT_TRUE(opened) << opened.error();
  ::close(opened->fd);
  EXPECT_EQ(opened->rev, 2u);
  EXPECT_EQ(opened->path, dir.path() / "t-000002.log");
  EXPECT_EQ(opened->size, 0);
  EXPECT_NE(log.sink->text().find("warning [t/c] working file already exists: "),
            std::string::npos);
  EXPECT_NE(log.sink->text().find("info [t/c] opening " + opened->path.string()),
            std::string::npos);
}

TEST(RevisionOpener, AppendReopensExistingFile) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  testutil::write_file(dir.path() / "t.log", "12345");
  auto opened = open_next_revision(plan_in(dir.path(), "t.log"), *log.logger, "[t/c]");
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->size, 5);
  ASSERT_EQ(::write(opened->fd, "6", 1), 1);
  ::close(opened->fd);
  EXPECT_EQ(testutil::read_file(dir.path() / "t.log"), "123456");
}

TEST(RevisionOpener, OversizedExistingFileIsSkipped) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  testutil::write_file(dir.path() / "t-000000.log", std::string(11, 'x'));
  auto p = plan_in(dir.path(), "t<REV>.log");
  p.rotate_size = 10;
  auto opened = open_next_revision(p, *log.logger, "[t/c]");
  ASSERT_TRUE(opened);
  ::close(opened->fd);
  EXPECT_EQ(opened->rev, 1u);
  EXPECT_NE(log.sink->text().find("currently 11 bytes (> 10), rotating..."), std::string::npos);
}

TEST(RevisionOpener, NameTakenInOutputDirIsSkippedAndDirsAreMade) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  OpenPlan p;
  p.work_dir = dir.path() / "work";
  p.output_dir = dir.path() / "out";
  p.name = "sub/t<REV>.log";
  p.exclusive = true;
  std::filesystem::create_directories(p.output_dir / "sub");
  testutil::write_file(p.output_dir / "sub" / "t-000000.log", "done before");
  auto opened = open_next_revision(p, *log.logger, "[t/c]");
  ASSERT_TRUE(opened) << opened.error();
  ::close(opened->fd);
  EXPECT_EQ(opened->path, p.work_dir / "sub" / "t-000001.log");
  EXPECT_NE(log.sink->text().find("output file already exists: "), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat((p.work_dir / "sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0007, 0u) << "directories are 0770 (less the umask)";
}

TEST(FileMover, MovesWithoutOverwritingAndBumpsRevision) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  const auto work = dir.path() / "work";
  const auto out = dir.path() / "out";
  std::filesystem::create_directories(work);
  std::filesystem::create_directories(out);
  testutil::write_file(work / "t-000000.log", "new");
  testutil::write_file(out / "t-000000.log", "existing 0");
  testutil::write_file(out / "t-000001.log", "existing 1");
  auto moved =
      move_without_overwrite({work / "t-000000.log", out, "t<REV>.log", 0}, *log.logger, "[t/c]");
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_EQ(*moved, out / "t-000002.log");
  EXPECT_EQ(testutil::read_file(out / "t-000000.log"), "existing 0");
  EXPECT_EQ(testutil::read_file(out / "t-000001.log"), "existing 1");
  EXPECT_EQ(testutil::read_file(out / "t-000002.log"), "new");
  EXPECT_FALSE(std::filesystem::exists(work / "t-000000.log"));
  EXPECT_NE(log.sink->text().find("renamed finished file"), std::string::npos);
}

TEST(FileMover, PlainMove) {
  testutil::TempDir dir;
  testutil::CapturingLogger log;
  testutil::write_file(dir.path() / "a-000003.log", "x");
  auto moved = move_without_overwrite(
      {dir.path() / "a-000003.log", dir.path() / "out" / "deep", "a<REV>.log", 3}, *log.logger,
      "[t/c]");
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_EQ(testutil::read_file(dir.path() / "out" / "deep" / "a-000003.log"), "x");
}

}  // namespace
}  // namespace nsq::to_file
