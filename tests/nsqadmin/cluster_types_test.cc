// Parsing the upstream JSON and summing stats over nodes, as Go's clusterinfo.
#include "cluster_types.h"

#include <gtest/gtest.h>

#include "cluster_json.h"

namespace nsq::admin {
namespace {

const char* kStats = R"({"version":"1.3.0","health":"OK","start_time":100,"topics":[
  {"topic_name":"t","channels":[
    {"channel_name":"c","depth":7,"backend_depth":2,"in_flight_count":3,"deferred_count":1,
     "message_count":20,"requeue_count":4,"timeout_count":5,"client_count":1,"paused":true,
     "e2e_processing_latency":{"count":10,"percentiles":[{"quantile":0.99,"value":2000},
       {"quantile":0.5,"value":1000}],"topic":"t","channel":"c","host":"h1"},
     "clients":[{"client_id":"","hostname":"h1","version":"V2","remote_address":"10.0.0.1:5000",
       "ready_count":9,"in_flight_count":3,"message_count":20,"finish_count":16,"requeue_count":4,
       "connect_ts":1000,"sample_rate":0,"deflate":false,"snappy":true,"user_agent":"ua/1",
       "tls":false}]}],
  "depth":10,"backend_depth":4,"message_count":30,"message_bytes":300,"paused":false}],
  "producers":null})";

TEST(ClusterTypes, ParsesNsqdStats) {
  auto topics = parse_nsqd_stats(kStats, 1010);
  ASSERT_TRUE(topics) << topics.error();
  ASSERT_EQ(topics->size(), 1u);
  const auto& t = (*topics)[0];
  EXPECT_EQ(t.topic_name, "t");
  EXPECT_EQ(t.depth, 10);
  EXPECT_EQ(t.memory_depth, 6);
  EXPECT_EQ(t.start_time, 100);
  ASSERT_EQ(t.channels.size(), 1u);
  const auto& c = t.channels[0];
  EXPECT_EQ(c.memory_depth(), 5);
  EXPECT_TRUE(c.paused);
  ASSERT_EQ(c.clients.size(), 1u);
  // No client_id (old nsqd): Go shows hostname:port.
  EXPECT_EQ(c.clients[0].client_id, "h1:5000");
  EXPECT_EQ(c.clients[0].connected, 10'000'000'000);
  EXPECT_TRUE(c.clients[0].snappy);
  EXPECT_EQ(c.clients[0].ready_count, 9);
}

TEST(ClusterTypes, NullTopicsIsEmptyAndGarbageIsAnError) {
  auto none = parse_nsqd_stats(R"({"topics":null})", 0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(parse_nsqd_stats("not json", 0));
  EXPECT_FALSE(parse_lookupd_producers("[1,2]"));
}

TEST(ClusterTypes, TopicAddSumsNodesAndChannelsByName) {
  auto a = parse_nsqd_stats(kStats, 1010).value()[0];
  a.node = "n1:4151";
  a.hostname = "h1";
  auto b = a;
  b.node = "n2:4151";
  b.hostname = "h0";
  b.paused = true;
  b.channels[0].paused = false;

  TopicStats sum;
  sum.topic_name = "t";
  sum.add(a);
  sum.add(b);
  EXPECT_EQ(sum.node, "*");
  EXPECT_EQ(sum.depth, 20);
  EXPECT_EQ(sum.message_count, 60);
  EXPECT_TRUE(sum.paused);
  ASSERT_EQ(sum.node_stats.size(), 2u);
  EXPECT_EQ(sum.node_stats[0].hostname, "h0") << "sorted by host";
  ASSERT_EQ(sum.channels.size(), 1u) << "one channel summed over both nodes";
  const auto& c = sum.channels[0];
  EXPECT_EQ(c.depth, 14);
  EXPECT_EQ(c.in_flight_count, 6);
  EXPECT_EQ(c.client_count, 2);
  EXPECT_EQ(c.clients.size(), 2u);
  EXPECT_EQ(c.node_stats.size(), 2u);
  EXPECT_TRUE(c.paused) << "paused on one node shows paused";
}

TEST(ClusterTypes, LatencyQuantilesSummedOverNodes) {
  auto a = parse_nsqd_stats(kStats, 0).value()[0];
  const auto& per_node = a.channels[0].e2e_processing_latency;
  EXPECT_EQ(per_node.count, 10);
  ASSERT_EQ(per_node.percentiles.size(), 2u);
  EXPECT_TRUE(per_node.percentiles[0].has_value);
  EXPECT_EQ(per_node.percentiles[0].average, 2000);
  auto b = a;
  b.channels[0].e2e_processing_latency.percentiles[0].value = 4000;
  b.channels[0].e2e_processing_latency.percentiles[0].min = 4000;
  b.channels[0].e2e_processing_latency.percentiles[0].max = 4000;
  b.channels[0].e2e_processing_latency.percentiles[0].average = 4000;
  b.channels[0].e2e_processing_latency.count = 30;
  b.channels[0].e2e_processing_latency.percentiles[0].count = 30;  // p50 keeps 10
  TopicStats sum;
  sum.add(a);
  sum.add(b);
  const auto& e = sum.channels[0].e2e_processing_latency;
  EXPECT_EQ(e.count, 40);
  EXPECT_EQ(e.host, "*");
  ASSERT_EQ(e.percentiles.size(), 2u);
  const auto& p99 = e.percentiles[0];
  EXPECT_EQ(p99.quantile, 0.99) << "highest quantile first";
  EXPECT_EQ(p99.min, 2000);
  EXPECT_EQ(p99.max, 4000);
  EXPECT_EQ(p99.count, 40);
  EXPECT_DOUBLE_EQ(p99.average, 3500) << "weighted by count: (10*2000 + 30*4000) / 40";
  EXPECT_FALSE(p99.has_value);
  JsonOut out;
  out.latency(e);
  EXPECT_EQ(out.take(),
            R"({"count":40,"percentiles":[{"average":3500,"count":40,"max":4000,"min":2000,)"
            R"("quantile":0.99},{"average":1000,"count":20,"max":1000,"min":1000,"quantile":0.5}],)"
            R"("topic":"t","channel":"c","host":"*"})");
}

TEST(ClusterTypes, LookupdProducersWithTombstones) {
  auto p = parse_lookupd_producers(
      R"({"producers":[{"remote_address":"127.0.0.1:5","hostname":"h","broadcast_address":"::1",
      "tcp_port":4150,"http_port":4151,"version":"1.3.0","tombstones":[false,true],
      "topics":["a","b"]}]})");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].http_address(), "[::1]:4151");
  ASSERT_EQ((*p)[0].topics.size(), 2u);
  EXPECT_FALSE((*p)[0].topics[0].tombstoned);
  EXPECT_TRUE((*p)[0].topics[1].tombstoned);
}

TEST(ClusterTypes, VersionOrder) {
  EXPECT_TRUE(version_less("1.2.1", "1.3.0"));
  EXPECT_TRUE(version_less("1.3.0", "1.10.0"));
  EXPECT_FALSE(version_less("1.3.0", "1.3.0"));
  EXPECT_TRUE(version_less("garbage", "0.0.1"));
}

// One node's /stats of a replicated topic (cluster mode), as `role` sees it.
std::string replicated_stats(const std::string& role) {
  return R"({"start_time":1,"topics":[{"topic_name":"t","channels":[],"depth":0,)"
         R"("backend_depth":0,"message_count":5,"paused":false,"replication":{"role":")" +
         role +
         R"(","epoch":3,"leader":"a:4150","replicas":["a:4150","b:4150","c:4150"],)"
         R"("isr":["a:4150","b:4150"],"lag":)" +
         (role == "leader" ? R"({"b:4150":0,"c:4150":42})" : "{}") + "}}]}";
}

TEST(ClusterTypes, ASummedTopicShowsTheLeadersReplication) {
  auto follower = parse_nsqd_stats(replicated_stats("follower"), 0).value()[0];
  auto leader = parse_nsqd_stats(replicated_stats("leader"), 0).value()[0];
  ASSERT_TRUE(leader.replication);
  EXPECT_EQ(leader.replication->isr.size(), 2u);
  for (bool leader_first : {true, false}) {
    TopicStats sum;
    sum.add(leader_first ? leader : follower);
    sum.add(leader_first ? follower : leader);
    ASSERT_TRUE(sum.replication);
    EXPECT_EQ(sum.replication->role, "leader") << leader_first;
    EXPECT_EQ(sum.replication->lag.size(), 2u);
  }
  TopicStats plain;
  plain.add(parse_nsqd_stats(kStats, 0).value()[0]);
  EXPECT_FALSE(plain.replication) << "not in cluster mode";

  JsonOut out;
  out.replication(*leader.replication);
  EXPECT_EQ(out.take(),
            R"({"role":"leader","epoch":3,"leader":"a:4150","replicas":["a:4150","b:4150",)"
            R"("c:4150"],"isr":["a:4150","b:4150"],"lag":{"b:4150":0,"c:4150":42}})");
}

// Topology-aware consumption (Go master): counts summed over nodes and
// shown when not zero; client and node topology shown when set.
TEST(ClusterTypes, TopologyCountsAndFields) {
  const std::string stats = R"({"topics":[{"topic_name":"t","message_count":9,
    "zone_local_msg_count":5,"global_msg_count":4,"channels":[{"channel_name":"c",
    "zone_local_msg_count":5,"global_msg_count":4,"clients":[{"client_id":"x",
    "remote_address":"1.2.3.4:5","topology_zone":"z1","topology_region":"r1",
    "node_topology_zone":"z1","node_topology_region":"r1"}]}]}]})";
  auto a = parse_nsqd_stats(stats, 0).value()[0];
  a.node = "n1";
  TopicStats sum;
  sum.add(a);
  sum.add(a);
  EXPECT_EQ(sum.zone_local_msg_count, 10u);
  EXPECT_EQ(sum.global_msg_count, 8u);
  EXPECT_EQ(sum.region_local_msg_count, 0u);
  ASSERT_EQ(sum.channels.size(), 1u);
  EXPECT_EQ(sum.channels[0].zone_local_msg_count, 10u);

  JsonOut out;
  out.channel(a.channels[0]);
  const std::string json = out.take();
  EXPECT_NE(json.find(R"("message_count":0,"zone_local_msg_count":5,"global_msg_count":4,)"
                      R"("client_count":0)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("auth_identity_url":"","node_topology_region":"r1",)"
                      R"("node_topology_zone":"z1","topology_region":"r1","topology_zone":"z1",)"),
            std::string::npos)
      << json;

  auto p = parse_lookupd_producers(
      R"({"producers":[{"broadcast_address":"b","http_port":1,"version":"1.3.0",
      "topology_zone":"z1","topology_region":"r1"}]})");
  ASSERT_TRUE(p && p->size() == 1);
  out.producer((*p)[0]);
  EXPECT_NE(out.take().find(R"("version":"1.3.0","topology_zone":"z1","topology_region":"r1",)"),
            std::string::npos);
}

TEST(ClusterJson, GoFieldNamesAndNullLists) {
  JsonOut out;
  Producer p;
  p.broadcast_address = "b";
  p.http_port = 1;
  out.producer(p);
  EXPECT_EQ(out.take(),
            R"({"remote_addresses":null,"remote_address":"","hostname":"","broadcast_address":"b",)"
            R"("tcp_port":0,"http_port":1,"version":"","topics":null,"out_of_date":false})");
  EXPECT_EQ(message_json("INVALID_TOPIC"), R"({"message":"INVALID_TOPIC"})");
}

}  // namespace
}  // namespace nsq::admin
