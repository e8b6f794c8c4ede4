// nsqlookupd's HTTP API against the real binary (lookupd.md §2-§3), with a
// fake nsqd registered over TCP V1: endpoints, errors, inactive producers,
// tombstones.
#include "integration/lookupd_harness.h"

namespace nsq::integration::lookupd {
namespace {

class LookupdHttp : public LookupdTest {};

bool is_error(const std::optional<testutil::HttpReply>& r, int status, const std::string& msg) {
  return r && r->status == status && r->body == R"({"message":")" + msg + R"("})" &&
         r->header("x-nsq-content-type") == "nsq; version=1.0";
}

TEST_F(LookupdHttp, BasicsAndErrors) {
  start();
  auto r = get("/ping");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "OK");
  r = get("/info");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"version":"1.3.0"})");
  EXPECT_EQ(r->header("x-nsq-content-type"), "nsq; version=1.0");
  EXPECT_EQ(r->header("content-type"), "application/json; charset=utf-8");
  EXPECT_TRUE(is_error(get("/nope"), 404, "NOT_FOUND"));
  EXPECT_TRUE(is_error(post("/lookup?topic=t"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(is_error(get("/topic/create?topic=t"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(is_error(get("/lookup"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_TRUE(is_error(get("/lookup?topic=t"), 404, "TOPIC_NOT_FOUND"));
  EXPECT_TRUE(is_error(get("/channels"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_EQ(body("/topics"), R"({"topics":[]})");
  EXPECT_EQ(body("/channels?topic=t"), R"({"channels":[]})");
  EXPECT_EQ(body("/nodes"), R"({"producers":[]})");
  EXPECT_EQ(body("/debug"), "{}");
}

TEST_F(LookupdHttp, AdminActions) {
  start();
  EXPECT_TRUE(is_error(post("/topic/create"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_TRUE(is_error(post("/topic/create?topic=b@d"), 400, "INVALID_ARG_TOPIC"));
  auto r = post("/topic/create?topic=t");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "");
  EXPECT_EQ(body("/lookup?topic=t"), R"({"channels":[],"producers":[]})");
  EXPECT_TRUE(is_error(post("/channel/create?topic=t"), 400, "MISSING_ARG_CHANNEL"));
  EXPECT_TRUE(is_error(post("/channel/create?topic=t&channel=b@d"), 400, "INVALID_ARG_CHANNEL"));
  EXPECT_TRUE(is_error(post("/channel/create?channel=c"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_EQ(post("/channel/create?topic=u&channel=c")->status, 200);
  EXPECT_EQ(body("/topics"), R"({"topics":["t","u"]})");
  EXPECT_EQ(body("/channels?topic=u"), R"({"channels":["c"]})");
  EXPECT_TRUE(is_error(post("/channel/delete?topic=u&channel=x"), 404, "CHANNEL_NOT_FOUND"));
  EXPECT_EQ(post("/channel/delete?topic=u&channel=c")->status, 200);
  EXPECT_EQ(body("/channels?topic=u"), R"({"channels":[]})");
  post("/channel/create?topic=u&channel=c");
  EXPECT_TRUE(is_error(post("/topic/delete"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_EQ(post("/topic/delete?topic=u")->status, 200);
  EXPECT_EQ(post("/topic/delete?topic=unknown")->status, 200);
  EXPECT_EQ(body("/topics"), R"({"topics":["t"]})");
  EXPECT_EQ(body("/channels?topic=u"), R"({"channels":[]})");
}

TEST_F(LookupdHttp, NodesAndDebugWithARegisteredPeer) {
  start();
  V1Peer p;
  ASSERT_TRUE(p.connect(tcp_port()));
  ASSERT_TRUE(p.identify_as("n1", 4999));
  ASSERT_EQ(p.command("REGISTER t1 c1"), "OK");
  ASSERT_EQ(p.command("REGISTER t2"), "OK");
  const std::string id = p.local_address();
  EXPECT_EQ(body("/nodes"),
            R"({"producers":[{"remote_address":")" + id +
                R"(","hostname":"fake","broadcast_address":"n1","tcp_port":4150,"http_port":4999,)"
                R"("version":"1.3.0","tombstones":[false,false],"topics":["t1","t2"]}]})");
  rapidjson::Document d;
  const std::string dbg = body("/debug");
  d.Parse(dbg.c_str());
  ASSERT_TRUE(d.IsObject()) << dbg;
  for (const char* key : {"client::", "topic:t1:", "topic:t2:", "channel:t1:c1"}) {
    ASSERT_TRUE(d.HasMember(key)) << key << " " << dbg;
    ASSERT_EQ(d[key].Size(), 1u);
    const auto& e = d[key][0];
    EXPECT_STREQ(e["id"].GetString(), id.c_str());
    EXPECT_GT(e["last_update"].GetInt64(), 0);
    EXPECT_FALSE(e["tombstoned"].GetBool());
  }
}

TEST_F(LookupdHttp, InactiveProducersAreHiddenUntilTheyPing) {
  start({"--inactive-producer-timeout=700ms"});
  V1Peer p;
  ASSERT_TRUE(p.connect(tcp_port()));
  ASSERT_TRUE(p.identify_as("n1"));
  ASSERT_EQ(p.command("REGISTER t"), "OK");
  EXPECT_NE(body("/lookup?topic=t").find("\"n1\""), std::string::npos);
  EXPECT_TRUE(eventually("/lookup?topic=t", R"("producers":[])", true, 5000ms));
  EXPECT_EQ(body("/nodes"), R"({"producers":[]})");
  // A PING makes it active again.
  ASSERT_EQ(p.command("PING"), "OK");
  EXPECT_NE(body("/lookup?topic=t").find("\"n1\""), std::string::npos);
  EXPECT_NE(body("/nodes").find("\"n1\""), std::string::npos);
}

TEST_F(LookupdHttp, TombstoneHidesAProducerForItsLifetime) {
  start({"--tombstone-lifetime=1s"});
  V1Peer a, b;
  ASSERT_TRUE(a.connect(tcp_port()));
  ASSERT_TRUE(b.connect(tcp_port()));
  ASSERT_TRUE(a.identify_as("na", 4151));
  ASSERT_TRUE(b.identify_as("nb", 4152));
  ASSERT_EQ(a.command("REGISTER t"), "OK");
  ASSERT_EQ(b.command("REGISTER t"), "OK");
  ASSERT_EQ(a.command("REGISTER other"), "OK");
  EXPECT_TRUE(is_error(post("/topic/tombstone?topic=t"), 400, "MISSING_ARG_NODE"));
  EXPECT_TRUE(is_error(post("/topic/tombstone?node=na:4151"), 400, "MISSING_ARG_TOPIC"));
  EXPECT_EQ(post("/topic/tombstone?topic=t&node=nowhere:1")->status, 200);
  EXPECT_EQ(post("/topic/tombstone?topic=t&node=na:4151")->status, 200);
  std::string lookup = body("/lookup?topic=t");
  EXPECT_EQ(lookup.find("\"na\""), std::string::npos) << lookup;
  EXPECT_NE(lookup.find("\"nb\""), std::string::npos) << lookup;
  EXPECT_NE(body("/lookup?topic=other").find("\"na\""), std::string::npos);
  // Listed in /nodes with the flag; re-registering does not clear it.
  EXPECT_NE(body("/nodes").find(R"("tombstones":[false,true],"topics":["other","t"])"),
            std::string::npos)
      << body("/nodes");
  ASSERT_EQ(a.command("REGISTER t"), "OK");
  EXPECT_EQ(body("/lookup?topic=t").find("\"na\""), std::string::npos);
  // Visible again after the lifetime.
  EXPECT_TRUE(eventually("/lookup?topic=t", "\"na\"", true, 5000ms));
}

}  // namespace
}  // namespace nsq::integration::lookupd
