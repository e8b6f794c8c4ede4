#include <gtest/gtest.h>

#include "nsq/id_generator.h"

namespace nsq {
namespace {

// Expected values: crc32(md5(hostname).digest()) % 1024, computed with Python.
TEST(DefaultNodeIdTest, KnownHostnames) {
  EXPECT_EQ(default_node_id("localhost"), 16);
  EXPECT_EQ(default_node_id("nsqd-1"), 958);
  EXPECT_EQ(default_node_id("example.com"), 3);
  EXPECT_EQ(default_node_id(""), 812);
}

TEST(DefaultNodeIdTest, InRange) {
  for (int i = 0; i < 200; ++i) {
    const int64_t id = default_node_id("host-" + std::to_string(i));
    EXPECT_GE(id, 0);
    EXPECT_LE(id, IdGenerator::kMaxNodeId);
  }
}

}  // namespace
}  // namespace nsq
