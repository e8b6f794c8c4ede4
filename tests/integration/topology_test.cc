// Topology-aware consumption (Go master, --enable-experiment=
// topology-aware-consumption): a consumer that IDENTIFYs with this nsqd's
// zone, then region, gets a published message before anyone else; /stats
// counts deliveries by locality and shows each client's topology.

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using TopologyTest = HttpTest;

const std::vector<std::string> kTopologyFlags = {"--topology-region=r1", "--topology-zone=z1",
                                                 "--enable-experiment=topology-aware-consumption"};

constexpr const char* kZoneLocal = R"({"topology_region":"r1","topology_zone":"z1"})";
constexpr const char* kRegionLocal = R"({"topology_region":"r1","topology_zone":"z2"})";
constexpr const char* kRemote = R"({"topology_region":"r9","topology_zone":"z9"})";

std::string str_or_missing(const rapidjson::Value& obj, const char* key) {
  return obj.HasMember(key) && obj[key].IsString() ? obj[key].GetString() : "<missing>";
}

// PUBs `n` messages, one round trip each.
void publish_n(RawClient& p, int n) {
  for (int i = 0; i < n; ++i) {
    p.pub("t", "m" + std::to_string(i));
    ASSERT_TRUE(got_response(p, "OK")) << i;
  }
}

class TopologyScenario : public TopologyTest {
 protected:
  // `local` subscribes with RDY rdy and is shown to be taking (it receives a
  // first message, kept in flight); then `remote` subscribes with RDY 100.
  void local_then_remote(const char* local_identify, int rdy) {
    start_http(kTopologyFlags);
    if (IsSkipped() || HasFatalFailure()) return;
    local_ = consumer("t", "c", rdy, local_identify);
    producer_ = client();
    publish_n(producer_, 1);
    ASSERT_TRUE(read_message(local_)) << "the only consumer gets the first message";
    remote_ = consumer("t", "c", 100, kRemote);
  }

  int count_messages(RawClient& c, int most) {
    int n = 0;
    while (n < most && read_message(c, kQuiet)) ++n;
    return n;
  }

  RawClient local_, remote_, producer_;
};

TEST_F(TopologyScenario, ZoneLocalConsumerFirstThenAnyone) {
  local_then_remote(kZoneLocal, 50);
  if (IsSkipped() || HasFatalFailure()) return;
  publish_n(producer_, 49);  // exactly the room the zone-local consumer has left
  EXPECT_EQ(count_messages(local_, 49), 49);
  EXPECT_TRUE(got_nothing(remote_))
      << "a remote consumer got a message a zone-local one could take";
  publish_n(producer_, 20);  // no local room: the remote consumer's
  EXPECT_EQ(count_messages(remote_, 20), 20);
  EXPECT_TRUE(got_nothing(local_));

  ASSERT_TRUE(stats("topic=t"));
  auto* ch = channel("t", "c");
  ASSERT_TRUE(ch) << stats_body_;
  EXPECT_EQ(int_of(*ch, "zone_local_msg_count"), 50);
  EXPECT_EQ(int_of(*ch, "global_msg_count"), 20);
  EXPECT_FALSE(ch->HasMember("region_local_msg_count")) << "omitted when zero, as Go";
  auto* tp = topic("t");
  EXPECT_EQ(int_of(*tp, "zone_local_msg_count"), 50);
  EXPECT_EQ(int_of(*tp, "global_msg_count"), 20);
  ASSERT_TRUE((*ch)["clients"].IsArray());
  std::set<std::string> zones;
  for (auto& c : (*ch)["clients"].GetArray()) {
    EXPECT_EQ(str_or_missing(c, "node_topology_zone"), "z1");
    EXPECT_EQ(str_or_missing(c, "node_topology_region"), "r1");
    zones.insert(str_or_missing(c, "topology_zone") + "/" + str_or_missing(c, "topology_region"));
  }
  EXPECT_EQ(zones, (std::set<std::string>{"z1/r1", "z9/r9"}));
}

TEST_F(TopologyScenario, RegionLocalConsumerBeforeRemote) {
  local_then_remote(kRegionLocal, 30);
  if (IsSkipped() || HasFatalFailure()) return;
  publish_n(producer_, 29);
  EXPECT_EQ(count_messages(local_, 29), 29);
  EXPECT_TRUE(got_nothing(remote_));
  EXPECT_EQ(channel_stat("t", "c", "region_local_msg_count"), 30);
}

// A zone-local consumer that leaves: what it held in flight times out (nsqd
// does not requeue on disconnect) and, with no local consumer left, goes to
// the remote one.
TEST_F(TopologyScenario, WhatALocalConsumerLeavesGoesToTheOthers) {
  local_then_remote(R"({"topology_region":"r1","topology_zone":"z1","msg_timeout":1000})", 10);
  if (IsSkipped() || HasFatalFailure()) return;
  publish_n(producer_, 9);
  EXPECT_EQ(count_messages(local_, 9), 9);
  local_.close();
  int got = 0;
  while (got < 10 && read_message(remote_, 5s)) ++got;
  EXPECT_EQ(got, 10);
  EXPECT_EQ(channel_stat("t", "c", "timeout_count"), 10);
}

TEST_F(TopologyTest, WithoutTheExperimentNothingIsCountedOrPreferred) {
  start_http({"--topology-region=r1", "--topology-zone=z1"});
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10, kZoneLocal);
  auto p = client();
  publish_n(p, 3);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(read_message(c));
  ASSERT_TRUE(stats("topic=t"));
  auto* ch = channel("t", "c");
  ASSERT_TRUE(ch) << stats_body_;
  for (const char* key : {"zone_local_msg_count", "region_local_msg_count", "global_msg_count"}) {
    EXPECT_FALSE(ch->HasMember(key)) << key;
  }
  // The client's topology is still shown.
  ASSERT_TRUE((*ch)["clients"].IsArray() && (*ch)["clients"].Size() == 1);
  EXPECT_EQ(str_or_missing((*ch)["clients"][0], "topology_zone"), "z1");
  EXPECT_TRUE(is_v1_ok(get("/config/topology_zone"), "z1"));
  EXPECT_TRUE(is_v1_ok(get("/config/enable_experiment"), "[]"));
}

}  // namespace
}  // namespace nsq::integration
