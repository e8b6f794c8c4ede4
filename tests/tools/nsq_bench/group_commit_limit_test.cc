#include "group_commit_limit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace nsq::bench {
namespace {

using namespace std::chrono_literals;

class GroupCommitLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("group_commit_limit_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(GroupCommitLimit, EveryReplyFollowsAnFsyncAndTheScratchFileIsRemoved) {
  auto r = measure_group_commit(dir_, 4, 100, 300ms);
  ASSERT_TRUE(r) << r.error();
  EXPECT_GT(r->fsyncs, 0u);
  // A group is at least one message, and at most one per client (each waits
  // for its reply before sending again).
  EXPECT_GE(r->acknowledged, r->fsyncs);
  EXPECT_LE(r->acknowledged, r->fsyncs * 4);
  EXPECT_GE(r->secs, 0.3);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(GroupCommitLimit, AMissingDirectoryIsAnErrorNamingIt) {
  auto r = measure_group_commit(dir_ / "missing", 2, 100, 100ms);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find((dir_ / "missing").string()), std::string::npos) << r.error();
}

}  // namespace
}  // namespace nsq::bench
