// Bounded channels: max_depth with the reject and drop_oldest policies.
#include <gtest/gtest.h>

#include "channel_fixture.h"

namespace nsq::nsqd {
namespace {

using coretest::TestSubscriber;

QueueSettings bounded(std::int64_t max, DepthPolicy policy) {
  QueueSettings s;
  s.max_depth = max;
  s.depth_policy = policy;
  return s;
}

TEST_F(ChannelTest, RejectPolicySaysWhatWouldNotFit) {
  auto ch = make_channel();
  EXPECT_FALSE(ch->would_reject(1'000'000)) << "unbounded";
  ch->set_settings(bounded(5, DepthPolicy::reject));
  put_n(*ch, 1, 3);
  EXPECT_FALSE(ch->would_reject(2));
  EXPECT_TRUE(ch->would_reject(3));
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  ASSERT_EQ(take(*ch, 1, 1).size(), 1u);
  EXPECT_FALSE(ch->would_reject(3)) << "in flight does not count";
  ch->set_settings(bounded(5, DepthPolicy::drop_oldest));
  EXPECT_FALSE(ch->would_reject(100)) << "drop_oldest never rejects";
}

TEST_F(ChannelTest, DropOldestKeepsTheNewest) {
  auto ch = make_channel();
  ch->set_settings(bounded(4, DepthPolicy::drop_oldest));
  put_n(*ch, 1, 10);
  ChannelStats s = ch->stats();
  EXPECT_EQ(s.depth, 4);
  EXPECT_EQ(s.dropped, 6u);
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  EXPECT_EQ(bodies(take(*ch, 1, 100)),
            (std::vector<std::string>{"body-7", "body-8", "body-9", "body-10"}));
}

class ChannelAllDiskTest : public ChannelTest {
 protected:
  static Options opts() {
    Options o = coretest::test_options();
    o.mem_queue_size = 0;
    return o;
  }
  ChannelAllDiskTest() : ChannelTest(opts()) {}
};

// What a channel queued on disk before it was bounded (here: everything,
// --mem-queue-size=0; after a restart too) is dropped first, as it is read back.
TEST_F(ChannelAllDiskTest, DropOldestDropsWhatIsOnDiskFirst) {
  auto ch = make_channel();
  put_n(*ch, 1, 5);
  ASSERT_EQ(ch->stats().depth, 5);
  ch->set_settings(bounded(3, DepthPolicy::drop_oldest));
  put_n(*ch, 6, 1);
  ASSERT_TRUE(coretest::eventually([&] { return ch->stats().dropped == 3; }, 5s));
  EXPECT_EQ(ch->stats().depth, 3);
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  std::vector<std::string> got;
  ASSERT_TRUE(coretest::eventually(
      [&] {
        for (auto& m : take(*ch, 1, 100)) got.emplace_back(m.msg->body());
        return got.size() >= 3;
      },
      5s));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"body-4", "body-5", "body-6"}));
}

class ChannelDurableBoundsTest : public ChannelTest {
 protected:
  static Options opts() {
    Options o = coretest::test_options();
    o.sync_publish = true;
    return o;
  }
  ChannelDurableBoundsTest() : ChannelTest(opts()) {}
};

// With --sync-publish every message goes through the disk queue: the bound
// applies once the records landed, oldest first as they are read back.
TEST_F(ChannelDurableBoundsTest, DropOldestBoundsADurableChannelToo) {
  auto ch = make_channel();
  ch->set_settings(bounded(2, DepthPolicy::drop_oldest));
  put_n(*ch, 1, 5);
  ASSERT_TRUE(coretest::eventually([&] { return ch->stats().dropped == 3; }, 5s));
  EXPECT_EQ(ch->stats().depth, 2);
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub), Channel::AddResult::ok);
  std::vector<std::string> got;
  ASSERT_TRUE(coretest::eventually(
      [&] {
        for (auto& m : take(*ch, 1, 100)) got.emplace_back(m.msg->body());
        return got.size() >= 2;
      },
      5s));
  EXPECT_EQ(got, (std::vector<std::string>{"body-4", "body-5"}));
}

}  // namespace
}  // namespace nsq::nsqd
