// A real full disk (a small tmpfs) in every durability mode, with and without
// preallocation: puts fail with ENOSPC once it is full, never after being
// acknowledged, and every acknowledged record reads back byte for byte, in
// the same process and after a reopen, once space is freed.
//
// (Issue 23: a zero fill that ENOSPC cut short left the fill mark behind the
// records written after it, and the next put zeroed them, fsynced and
// acknowledged as they were.)
#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "testutil/files.h"
#include "testutil/small_tmpfs.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

namespace fs = std::filesystem;
using testutil::SmallTmpfs;
using testutil::TempDir;

struct Mode {
  const char* name;
  std::int64_t sync_every;
  Durability durability;
  std::int64_t preallocate;
};

class FullDisk : public ::testing::TestWithParam<Mode> {
 protected:
  Options options(const fs::path& dir) const {
    Options o;
    o.name = "full";
    o.data_path = dir;
    o.min_msg_size = 1;
    o.max_msg_size = 4096;
    o.max_bytes_per_file = 256 * 1024;
    o.sync_every = GetParam().sync_every;
    o.preallocate_bytes = GetParam().preallocate;
    return o;
  }
};

std::string record(int i) {
  std::string r = "rec-" + std::to_string(i) + "-";
  r.resize(900 + static_cast<std::size_t>(i % 200), static_cast<char>('a' + i % 26));
  return r;
}

TEST_P(FullDisk, AcknowledgedRecordsSurviveAndPutsRecoverWhenSpaceIsFreed) {
  TempDir tmp;
  SmallTmpfs fs(tmp.path() / "mnt", 2048);
  if (!fs.mounted()) GTEST_SKIP() << "needs a tmpfs mount (root/CAP_SYS_ADMIN): " << fs.why();
  testutil::write_file(fs.path() / "ballast", std::string(384 * 1024, 'b'));
  fs::create_directories(fs.path() / "q");

  std::vector<std::string> acknowledged;
  int failures = 0;
  {
    auto q = DiskQueue::open(options(fs.path() / "q"));
    ASSERT_TRUE(q);
    // Well past the first failure: every put after a failed one must leave
    // what was acknowledged before alone.
    for (int i = 0; i < 4000 && failures < 200; ++i) {
      std::string r = record(i);
      if (std::error_code ec = (*q)->put(r, GetParam().durability)) {
        EXPECT_EQ(ec, std::errc::no_space_on_device) << ec.message();
        ++failures;
        continue;
      }
      acknowledged.push_back(std::move(r));
    }
    ASSERT_GT(failures, 0) << "the tmpfs never filled";
    ASSERT_GT(acknowledged.size(), 500u);

    fs::remove(fs.path() / "ballast");
    for (int i = 4000; i < 4100; ++i) {
      std::string r = record(i);
      ASSERT_FALSE((*q)->put(r, GetParam().durability)) << "space was freed";
      acknowledged.push_back(std::move(r));
    }
    // In the same process: everything acknowledged, in order.
    for (std::size_t i = 0; i < acknowledged.size() / 2; ++i) {
      auto r = (*q)->try_read();
      ASSERT_TRUE(r) << "record " << i << " of " << acknowledged.size() << " missing";
      ASSERT_EQ(*r, acknowledged[i]) << "record " << i;
    }
    ASSERT_FALSE((*q)->close());
  }
  // After a reopen: the rest, and nothing else; no segment was taken for bad.
  auto q = DiskQueue::open(options(fs.path() / "q"));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(),
            static_cast<std::int64_t>(acknowledged.size() - acknowledged.size() / 2));
  for (std::size_t i = acknowledged.size() / 2; i < acknowledged.size(); ++i) {
    auto r = (*q)->try_read();
    ASSERT_TRUE(r) << "record " << i << " of " << acknowledged.size() << " missing after reopen";
    ASSERT_EQ(*r, acknowledged[i]) << "record " << i;
  }
  EXPECT_FALSE((*q)->try_read());
  for (const auto& entry : fs::directory_iterator(fs.path() / "q")) {
    EXPECT_FALSE(entry.path().string().ends_with(".bad")) << entry.path();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, FullDisk,
    ::testing::Values(Mode{"Default", 2500, Durability::written, 0},
                      Mode{"SyncEvery1", 1, Durability::written, 0},
                      Mode{"SyncEvery1Preallocated", 1, Durability::written, 1 << 20},
                      Mode{"FsyncPutsPreallocated", 2500, Durability::fsync, 1 << 20},
                      Mode{"DefaultPreallocated", 2500, Durability::written, 1 << 20}),
    [](const auto& mode) { return std::string(mode.param.name); });

}  // namespace
}  // namespace nsq::diskqueue
