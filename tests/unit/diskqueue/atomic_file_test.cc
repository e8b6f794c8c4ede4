#include "diskqueue/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

// Files in `dir` other than `keep`.
int other_files(const TempDir& dir, const std::filesystem::path& keep) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path() != keep) ++n;
  }
  return n;
}

TEST(AtomicFile, CreatesTheFileWithMode0600AndLeavesNoTemporary) {
  TempDir dir;
  auto path = dir.path() / "nsqd.dat";
  ASSERT_FALSE(write_file_atomic(path, "{\"version\":\"1.3.0\"}"));
  EXPECT_EQ(testutil::read_file(path), "{\"version\":\"1.3.0\"}");
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(other_files(dir, path), 0);
}

TEST(AtomicFile, ReplacesTheWholeOldContent) {
  TempDir dir;
  auto path = dir.path() / "q.diskqueue.meta.dat";
  testutil::write_file(path, "a much longer old content than the new one\n");
  ASSERT_FALSE(write_file_atomic(path, "0\n0,0\n0,0\n", 7));
  EXPECT_EQ(testutil::read_file(path), "0\n0,0\n0,0\n");
  EXPECT_EQ(other_files(dir, path), 0);
}

TEST(AtomicFile, WritesThroughTheNamedTemporary) {
  TempDir dir;
  auto path = dir.path() / "q.diskqueue.meta.dat";
  testutil::write_file(path, "old");
  // The temporary's name taken by a directory: the write fails there and
  // the file keeps its content.
  auto tmp = dir.path() / "q.diskqueue.meta.dat.42.tmp";
  std::filesystem::create_directory(tmp);
  EXPECT_EQ(write_file_atomic(path, "new", 42), std::errc::is_a_directory);
  EXPECT_EQ(testutil::read_file(path), "old");
  EXPECT_FALSE(write_file_atomic(path, "new", 43));
  EXPECT_EQ(testutil::read_file(path), "new");
}

TEST(AtomicFile, AFailedRenameRemovesTheTemporary) {
  TempDir dir;
  auto path = dir.path() / "taken";
  std::filesystem::create_directory(path);
  std::filesystem::create_directory(path / "inside");  // rename cannot replace it
  EXPECT_TRUE(write_file_atomic(path, "x", 5));
  EXPECT_TRUE(std::filesystem::is_directory(path / "inside"));
  EXPECT_EQ(other_files(dir, path), 0);
}

TEST(AtomicFile, MissingDirectoryIsAnError) {
  TempDir dir;
  EXPECT_EQ(write_file_atomic(dir.path() / "no" / "file", "x"),
            std::errc::no_such_file_or_directory);
}

}  // namespace
}  // namespace nsq::diskqueue
