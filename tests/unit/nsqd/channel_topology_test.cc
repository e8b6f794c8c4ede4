// Topology-aware consumption in the channel: a message goes to a consumer in
// this nsqd's zone with room, then its region, then the shared queue.
#include <gtest/gtest.h>

#include "channel_fixture.h"

namespace nsq::nsqd {
namespace {

using coretest::TestSubscriber;

Options topology_options(bool experiment) {
  Options o = coretest::test_options();
  o.topology_zone = "z1";
  o.topology_region = "r1";
  if (experiment) o.experiments = {std::string(Options::kTopologyAwareConsumption)};
  return o;
}

class ChannelTopologyTest : public ChannelTest {
 protected:
  ChannelTopologyTest() : ChannelTest(topology_options(true)) {}

  // Subscribes client `id` and lets it ask for `rdy` messages (none there).
  std::shared_ptr<TestSubscriber> join(Channel& ch, ClientId id, Locality locality,
                                       std::int64_t rdy) {
    auto sub = std::make_shared<TestSubscriber>();
    EXPECT_EQ(ch.add_client(id, sub, locality), Channel::AddResult::ok);
    EXPECT_TRUE(take(ch, id, rdy).empty());
    return sub;
  }
};

TEST(Locality, FromTheClientsTopology) {
  const Options on = topology_options(true);
  EXPECT_EQ(locality_of(on, "r1", "z1"), Locality::zone);
  EXPECT_EQ(locality_of(on, "r9", "z1"), Locality::zone);
  EXPECT_EQ(locality_of(on, "r1", "z2"), Locality::region);
  EXPECT_EQ(locality_of(on, "r2", "z2"), Locality::global);
  EXPECT_EQ(locality_of(on, "", ""), Locality::global);
  EXPECT_EQ(locality_of(topology_options(false), "r1", "z1"), Locality::global);
  Options unset = coretest::test_options();
  unset.experiments = on.experiments;
  EXPECT_EQ(locality_of(unset, "", ""), Locality::global) << "an unset zone matches nobody";
}

TEST_F(ChannelTopologyTest, ZoneThenRegionThenAnyone) {
  auto ch = make_channel();
  auto remote = join(*ch, 1, Locality::global, 100);
  auto region = join(*ch, 2, Locality::region, 3);
  auto zone = join(*ch, 3, Locality::zone, 5);

  put_n(*ch, 1, 10);
  // Only the local consumers were woken: what they were given is theirs.
  EXPECT_EQ(zone->wakes(), 1);
  EXPECT_EQ(region->wakes(), 1);
  EXPECT_EQ(remote->wakes(), 1) << "the shared queue got the rest";
  EXPECT_EQ(bodies(take(*ch, 3, 5)),
            (std::vector<std::string>{"body-1", "body-2", "body-3", "body-4", "body-5"}));
  EXPECT_EQ(bodies(take(*ch, 2, 3)), (std::vector<std::string>{"body-6", "body-7", "body-8"}));
  EXPECT_EQ(bodies(take(*ch, 1, 100)), (std::vector<std::string>{"body-9", "body-10"}));

  ChannelStats s = ch->stats();
  EXPECT_EQ(s.zone_local, 5u);
  EXPECT_EQ(s.region_local, 3u);
  EXPECT_EQ(s.global, 2u);
}

TEST_F(ChannelTopologyTest, AGlobalConsumerCannotTakeWhatWasHandedToALocalOne) {
  auto ch = make_channel();
  join(*ch, 1, Locality::global, 100);
  join(*ch, 2, Locality::zone, 4);
  put_n(*ch, 1, 4);
  EXPECT_TRUE(take(*ch, 1, 100).empty());
  EXPECT_EQ(ch->stats().depth, 4) << "handed off, still queued";
  EXPECT_EQ(take(*ch, 2, 4).size(), 4u);
  EXPECT_EQ(ch->stats().depth, 0);
}

TEST_F(ChannelTopologyTest, LocalConsumersShareRoundRobin) {
  auto ch = make_channel();
  join(*ch, 1, Locality::zone, 100);
  join(*ch, 2, Locality::zone, 100);
  put_n(*ch, 1, 10);
  EXPECT_EQ(take(*ch, 1, 100).size(), 5u);
  EXPECT_EQ(take(*ch, 2, 100).size(), 5u);
}

TEST_F(ChannelTopologyTest, WhatALeavingConsumerWasGivenGoesToTheOthersInOrder) {
  auto ch = make_channel();
  auto remote = join(*ch, 1, Locality::global, 100);
  join(*ch, 2, Locality::zone, 3);
  put_n(*ch, 1, 3);
  put_n(*ch, 4, 1);  // no local room left: shared
  ch->remove_client(2);
  EXPECT_EQ(bodies(take(*ch, 1, 100)),
            (std::vector<std::string>{"body-1", "body-2", "body-3", "body-4"}));
}

TEST_F(ChannelTopologyTest, LoweringRdyGivesBackWhatDoesNotFit) {
  auto ch = make_channel();
  join(*ch, 1, Locality::global, 100);
  join(*ch, 2, Locality::zone, 3);
  put_n(*ch, 1, 3);
  EXPECT_TRUE(take(*ch, 2, 0).empty());  // RDY 0 before it took them
  EXPECT_EQ(take(*ch, 1, 100).size(), 3u);
}

TEST_F(ChannelTopologyTest, RequeuedAndTimedOutMessagesPreferLocalConsumersToo) {
  auto ch = make_channel();
  join(*ch, 1, Locality::global, 1);
  auto first = take(*ch, 1, 1);
  ASSERT_TRUE(first.empty());
  put_n(*ch, 1, 1);
  auto got = take(*ch, 1, 1);
  ASSERT_EQ(got.size(), 1u);
  join(*ch, 2, Locality::zone, 10);
  DiskWrites spill;
  EXPECT_EQ(ch->requeue(1, got[0].msg->id(), 0ms, spill), Channel::AckResult::ok);
  EXPECT_TRUE(take(*ch, 1, 1).empty());
  EXPECT_EQ(take(*ch, 2, 10).size(), 1u);
}

TEST_F(ChannelTopologyTest, CloseForShutdownKeepsHandedOffMessages) {
  auto ch = make_channel();
  join(*ch, 1, Locality::zone, 5);
  put_n(*ch, 1, 5);
  ch->close_for_shutdown();
  auto again = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(again->add_client(1, sub), Channel::AddResult::ok);
  ASSERT_TRUE(coretest::eventually([&] { return again->stats().depth == 5; }, 5s));
}

class ChannelNoTopologyTest : public ChannelTest {
 protected:
  ChannelNoTopologyTest() : ChannelTest(topology_options(false)) {}
};

TEST_F(ChannelNoTopologyTest, WithoutTheExperimentEveryMessageIsShared) {
  auto ch = make_channel();
  auto sub = std::make_shared<TestSubscriber>();
  ASSERT_EQ(ch->add_client(1, sub, Locality::zone), Channel::AddResult::ok);
  ASSERT_EQ(ch->add_client(2, sub), Channel::AddResult::ok);
  EXPECT_TRUE(take(*ch, 1, 10).empty());
  put_n(*ch, 1, 4);
  EXPECT_EQ(take(*ch, 2, 10).size(), 4u);
  ChannelStats s = ch->stats();
  EXPECT_EQ(s.zone_local + s.region_local + s.global, 0u) << "counted only with the experiment";
}

}  // namespace
}  // namespace nsq::nsqd
