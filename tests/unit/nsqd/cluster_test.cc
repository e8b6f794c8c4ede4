// Cluster mode without etcd: the JSON gateway's bodies and answers as etcd
// 3.4 writes them (captured from a real etcd), and the topology's values
// and decisions.
#include <gtest/gtest.h>

#include "cluster/etcd_json.h"
#include "cluster/replication_wire.h"
#include "cluster/topology.h"
#include "nsq/base64.h"

namespace nsq::nsqd::cluster {
namespace {

TEST(EtcdJson, RequestBodiesCarryKeysAndValuesAsBase64) {
  EXPECT_EQ(etcd::range_body({"foo", false}), R"({"key":"Zm9v"})");
  // A prefix range ends at the prefix with its last byte incremented.
  EXPECT_EQ(etcd::range_body({"/nsq/", true}), R"({"key":"L25zcS8=","range_end":"L25zcTA="})");
  EXPECT_EQ(etcd::put_body("foo", "bar", 0), R"({"key":"Zm9v","value":"YmFy"})");
  EXPECT_EQ(etcd::put_body("foo", "bar", 77), R"({"key":"Zm9v","value":"YmFy","lease":77})");
  EXPECT_EQ(etcd::lease_grant_body(5), R"({"TTL":5})");
  EXPECT_EQ(etcd::lease_id_body(12345), R"({"ID":12345})");
  using C = etcd::Compare;
  using O = etcd::Op;
  EXPECT_EQ(
      etcd::txn_body({C{"k", C::Target::create_revision, 0}, C{"m", C::Target::mod_revision, 9}},
                     {O{O::Kind::put, "k", "v", 3, false}}, {O{O::Kind::range, "k", "", 0, false}}),
      R"({"compare":[{"key":"aw==","target":"CREATE","result":"EQUAL","create_revision":0},)"
      R"({"key":"bQ==","target":"MOD","result":"EQUAL","mod_revision":9}],)"
      R"("success":[{"request_put":{"key":"aw==","value":"dg==","lease":3}}],)"
      R"("failure":[{"request_range":{"key":"aw=="}}]})");
}

TEST(EtcdJson, PrefixEndSkipsTrailingFfBytes) {
  EXPECT_EQ(etcd::prefix_end("a"), "b");
  EXPECT_EQ(etcd::prefix_end(std::string("a\xff", 2)), "b");
  EXPECT_EQ(etcd::prefix_end(std::string("\xff\xff", 2)), std::string(1, '\0'));
  EXPECT_EQ(etcd::prefix_end(""), std::string(1, '\0'));
}

TEST(EtcdJson, ParsesRangeAnswersWithStringInts) {
  auto r = etcd::parse_range(
      R"({"header":{"cluster_id":"32","member_id":"33","revision":"2","raft_term":"2"},)"
      R"("kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"3","version":"1","value":"YmFy","lease":"7"}],"count":"1"})");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->revision, 2);
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "foo");
  EXPECT_EQ(r->kvs[0].value, "bar");
  EXPECT_EQ(r->kvs[0].create_revision, 2);
  EXPECT_EQ(r->kvs[0].mod_revision, 3);
  EXPECT_EQ(r->kvs[0].lease, 7);
  // No kvs at all when nothing matched (proto3 leaves empty lists out).
  auto empty = etcd::parse_range(R"({"header":{"revision":"1"}})");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->kvs.empty());
}

TEST(EtcdJson, ParsesTransactionsBothWays) {
  auto won = etcd::parse_txn(
      R"({"header":{"revision":"2"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"2"}}}]})");
  ASSERT_TRUE(won);
  EXPECT_TRUE(won->succeeded);
  EXPECT_TRUE(won->ranges.empty());
  // A failed compare leaves "succeeded" out; the failure branch's range comes back.
  auto lost = etcd::parse_txn(
      R"({"header":{"revision":"2"},"responses":[{"response_range":{"header":{"revision":"2"},)"
      R"("kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"2","version":"1","value":"YmF6"}],"count":"1"}}]})");
  ASSERT_TRUE(lost);
  EXPECT_FALSE(lost->succeeded);
  ASSERT_EQ(lost->ranges.size(), 1u);
  EXPECT_EQ(lost->ranges[0].kvs.at(0).value, "baz");
}

TEST(EtcdJson, ParsesLeases) {
  auto id = etcd::parse_lease_grant(
      R"({"header":{"revision":"2"},"ID":"2324035782782956806","TTL":"5"})");
  ASSERT_TRUE(id);
  EXPECT_EQ(*id, 2324035782782956806);
  EXPECT_EQ(
      etcd::parse_lease_keepalive(R"({"result":{"header":{"revision":"2"},"ID":"9","TTL":"5"}})"),
      5);
  // An unknown lease: etcd answers without a TTL.
  EXPECT_EQ(etcd::parse_lease_keepalive(R"({"result":{"header":{"revision":"1"},"ID":"12345"}})"),
            0);
  EXPECT_FALSE(etcd::parse_lease_grant(R"({"header":{},"error":"too many leases"})"));
}

TEST(EtcdJson, RefusesMalformedAnswers) {
  EXPECT_FALSE(etcd::parse_range("not json"));
  EXPECT_FALSE(etcd::parse_range("[]"));
  EXPECT_FALSE(etcd::parse_range(R"({"kvs":[]})")) << "no header";
  EXPECT_FALSE(etcd::parse_range(R"({"header":{"revision":"x"}})"));
  EXPECT_FALSE(etcd::parse_range(R"({"header":{},"kvs":[{"key":"!!"}]})")) << "not base64";
  EXPECT_FALSE(etcd::parse_range(R"({"header":{},"kvs":{}})"));
  EXPECT_FALSE(etcd::parse_txn(R"({"header":{},"succeeded":"yes"})"));
  EXPECT_FALSE(etcd::parse_lease_keepalive(R"({"header":{}})"));
  EXPECT_EQ(etcd::parse_error(
                R"({"error":"x","message":"etcdserver: requested lease not found","code":5})"),
            "etcdserver: requested lease not found");
  EXPECT_FALSE(etcd::parse_error("<html>"));
  // Deep nesting is refused without recursion.
  EXPECT_FALSE(etcd::parse_range(std::string(100000, '[')));
}

TEST(Topology, PlacementRoundTripsAndRefusesWhatIsIncomplete) {
  Placement p{{"a:1", "b:1", "c:1"}, 4, "b:1", {"b:1", "c:1"}, 18446744073709551615u};
  EXPECT_EQ(encode(p),
            R"({"replicas":["a:1","b:1","c:1"],"epoch":4,"leader":"b:1","isr":["b:1","c:1"],)"
            R"("id_base":18446744073709551615})");
  EXPECT_EQ(decode_placement(encode(p)), p);
  EXPECT_EQ(decode_placement(R"({"replicas":["a"],"epoch":1})")->id_base, 0u) << "absent: 0";
  EXPECT_FALSE(decode_placement(R"({"replicas":["a"],"epoch":1,"id_base":-1})"));
  EXPECT_FALSE(decode_placement(R"({"replicas":["a\udc00"],"epoch":1})"))
      << "a lone surrogate escape decodes to no UTF-8";
  EXPECT_FALSE(decode_placement(R"({"replicas":["a:1"]})")) << "no epoch";
  EXPECT_FALSE(decode_placement(R"({"replicas":[],"epoch":1})")) << "no replica";
  EXPECT_FALSE(decode_placement(R"({"replicas":[1],"epoch":1})"));
  EXPECT_FALSE(decode_placement(R"({"replicas":["a"],"epoch":0})"));
  EXPECT_FALSE(decode_placement("null"));
}

etcd::KeyValue kv(std::string key, std::string value, std::int64_t mod = 1) {
  return etcd::KeyValue{std::move(key), std::move(value), 1, mod, 0};
}

TEST(Topology, ViewSortsKeysIntoNodesTopicsAndLeaders) {
  const Keys keys{"/nsq/"};
  etcd::RangeResult range;
  range.revision = 9;
  range.kvs = {
      kv("/nsq/nodes/a:1", encode(NodeInfo{"a:1", "a:2", "1.3.0"})),
      kv("/nsq/topics/t", encode(Placement{{"a:1"}, 1, "a:1", {"a:1"}}), 5),
      kv("/nsq/leaders/t", "a:1"),
      kv("/nsq/topics/broken", "{"),
      kv("/nsq/other/x", "ignored"),
      kv("/nsq/nodes/", "{}"),
  };
  const View view = read_view(keys, range);
  EXPECT_EQ(view.revision, 9);
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.nodes.at("a:1").http_address, "a:2");
  ASSERT_EQ(view.topics.size(), 1u);
  EXPECT_EQ(view.topics.at("t").mod_revision, 5);
  EXPECT_TRUE(view.led("t"));
  EXPECT_FALSE(view.led("u"));
  ASSERT_EQ(view.errors.size(), 1u);
  EXPECT_NE(view.errors[0].find("/nsq/topics/broken"), std::string::npos);
}

TEST(Topology, ReplicasAreTheCreatorThenTheLeastLoadedLiveNodes) {
  View view;
  for (const char* id : {"a:1", "b:1", "c:1", "d:1"}) view.nodes[id] = NodeInfo{};
  // b leads two topics, c one, d none.
  view.topics["t1"].placement = Placement{{"b:1"}, 1, "b:1", {"b:1"}};
  view.topics["t2"].placement = Placement{{"b:1"}, 1, "b:1", {"b:1"}};
  view.topics["t3"].placement = Placement{{"c:1"}, 1, "c:1", {"c:1"}};
  EXPECT_EQ(choose_replicas(view, "a:1", 3), (std::vector<std::string>{"a:1", "d:1", "c:1"}));
  EXPECT_EQ(choose_replicas(view, "b:1", 2), (std::vector<std::string>{"b:1", "a:1"}));
  EXPECT_EQ(choose_replicas(view, "a:1", 9).size(), 4u) << "capped by the live nodes";
  EXPECT_EQ(choose_replicas(view, "a:1", 1), (std::vector<std::string>{"a:1"}));
}

TEST(Topology, RolesSayWhoLeadsAndWhereToFetch) {
  View view;
  view.nodes["a:1"] = NodeInfo{"a:1", "a:2", "1.3.0"};
  view.nodes["b:1"] = NodeInfo{"b:1", "b:2", "1.3.0"};
  view.topics["t"].placement = Placement{{"a:1", "b:1"}, 4, "a:1", {"a:1", "b:1"}};
  view.topics["u"].placement = Placement{{"a:1", "b:1"}, 2, "b:1", {"b:1"}};
  view.topics["elsewhere"].placement = Placement{{"c:1"}, 1, "c:1", {"c:1"}};
  view.leaders["t"] = "a:1";  // u has lost its leader
  const auto roles = roles_of(view, "b:1");
  ASSERT_EQ(roles.size(), 2u);
  EXPECT_EQ(roles[0].topic, "t");
  EXPECT_FALSE(roles[0].leader);
  EXPECT_EQ(roles[0].epoch, 4u);
  EXPECT_EQ(roles[0].leader_id, "a:1");
  EXPECT_EQ(roles[0].leader_http, "a:2");
  EXPECT_EQ(roles[1].topic, "u");
  EXPECT_FALSE(roles[1].leader) << "no leaders/ key: nobody leads";
  EXPECT_EQ(roles[1].leader_id, "");
  EXPECT_TRUE(roles_of(view, "a:1")[0].leader);
}

TEST(ReplicationWire, FetchRequestsAndAnswersRoundTrip) {
  wire::FetchRequest request{500, 1 << 20, "b:1", {{"t", 4, 3, 634, 600}, {"u", 1, 0, 0, 0}}};
  const std::string bytes = wire::encode(request);
  EXPECT_EQ(bytes.size(), 4 + 4 + 2 + 3 + 2 + (2 + 1 + 4 + 4 + 8 + 8) * 2);
  EXPECT_EQ(wire::decode_request(bytes), request);
  std::vector<wire::FetchAnswer> answers = {
      {"t", wire::FetchStatus::ok, 4, 600, "records", "progress"},
      {"u", wire::FetchStatus::truncate, 2, 100, "", ""},
      {"v", wire::FetchStatus::not_leader, 0, 0, "", ""}};
  EXPECT_EQ(wire::decode_answers(wire::encode(answers)), answers);
  EXPECT_EQ(wire::decode_answers(wire::encode(std::vector<wire::FetchAnswer>{})),
            std::vector<wire::FetchAnswer>{});
}

TEST(ReplicationWire, RefusesShortLongAndUnknownBodies) {
  const std::string request = wire::encode(wire::FetchRequest{1, 2, "n", {{"t", 1, 1, 1, 1}}});
  for (std::size_t cut = 0; cut < request.size(); ++cut) {
    EXPECT_FALSE(wire::decode_request(request.substr(0, cut))) << cut;
  }
  EXPECT_FALSE(wire::decode_request(request + "x")) << "trailing bytes";
  // Fsynced beyond its own end: no follower can have that.
  EXPECT_FALSE(
      wire::decode_request(wire::encode(wire::FetchRequest{1, 2, "n", {{"t", 1, 1, 1, 2}}})));
  std::string answers = wire::encode({{"t", wire::FetchStatus::ok, 1, 1, "r", "p"}});
  EXPECT_FALSE(wire::decode_answers(answers.substr(0, answers.size() - 1)));
  answers[2 + 2 + 1] = 9;  // status
  EXPECT_FALSE(wire::decode_answers(answers));
}

}  // namespace
}  // namespace nsq::nsqd::cluster
