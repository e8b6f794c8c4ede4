// nsqlookupd's TCP protocol V1 against the real binary (lookupd.md §1):
// every command and error, bad input harming no other peer, and the
// registration effects seen over HTTP.
#include "integration/lookupd_harness.h"

namespace nsq::integration::lookupd {
namespace {

class LookupdV1 : public LookupdTest {};

TEST_F(LookupdV1, IdentifyAnswersWithSortedKeysAndRealPorts) {
  start({"--broadcast-address=lookupd.example"});
  V1Peer p;
  ASSERT_TRUE(p.connect(tcp_port()));
  EXPECT_EQ(p.command("PING"), "OK");  // before IDENTIFY too
  auto r = p.identify(
      R"({"broadcast_address":"n1","hostname":"h","tcp_port":4150,"http_port":4151,"version":"1.3.0"})");
  ASSERT_TRUE(r);
  rapidjson::Document d;
  d.Parse(r->c_str());
  ASSERT_TRUE(d.IsObject()) << *r;
  std::vector<std::string> keys;
  for (auto& m : d.GetObject()) keys.emplace_back(m.name.GetString());
  EXPECT_EQ(keys, (std::vector<std::string>{"broadcast_address", "hostname", "http_port",
                                            "tcp_port", "version"}));
  EXPECT_STREQ(d["broadcast_address"].GetString(), "lookupd.example");
  EXPECT_EQ(d["tcp_port"].GetInt(), tcp_port());
  EXPECT_EQ(d["http_port"].GetInt(), lookupd_.http_port());
  EXPECT_STREQ(d["version"].GetString(), "1.3.0");
  EXPECT_EQ(p.command("PING"), "OK");
  EXPECT_TRUE(
      lookupd_.wait_for_log("IDENTIFY Address:n1 TCP:4150 HTTP:4151 Version:1.3.0", 5000ms));
}

TEST_F(LookupdV1, RegisterUnregisterAndDisconnect) {
  start();
  V1Peer p;
  ASSERT_TRUE(p.connect(tcp_port()));
  ASSERT_TRUE(p.identify_as("n1"));
  EXPECT_EQ(p.command("REGISTER t1 c1"), "OK");
  EXPECT_EQ(p.command("REGISTER t1 c1"), "OK");  // idempotent
  EXPECT_EQ(p.command("REGISTER t2"), "OK");
  EXPECT_EQ(body("/topics"), R"({"topics":["t1","t2"]})");
  EXPECT_EQ(body("/channels?topic=t1"), R"({"channels":["c1"]})");
  const std::string id = p.local_address();
  EXPECT_EQ(
      body("/lookup?topic=t1"),
      R"({"channels":["c1"],"producers":[{"remote_address":")" + id +
          R"(","hostname":"fake","broadcast_address":"n1","tcp_port":4150,"http_port":4151,"version":"1.3.0"}]})");
  EXPECT_TRUE(lookupd_.wait_for_log(
      "DB: client(" + id + ") REGISTER category:channel key:t1 subkey:c1", 5000ms));

  EXPECT_EQ(p.command("UNREGISTER t1 c1"), "OK");
  EXPECT_EQ(body("/lookup?topic=t1").find(R"("producers":[])"), std::string::npos);  // topic still
  EXPECT_EQ(body("/channels?topic=t1"), R"({"channels":["c1"]})");                   // key kept
  EXPECT_EQ(p.command("UNREGISTER t1"), "OK");
  EXPECT_EQ(body("/lookup?topic=t1"), R"({"channels":["c1"],"producers":[]})");

  // Closing the connection removes the peer everywhere; keys stay.
  p.close();
  EXPECT_TRUE(eventually("/nodes", R"({"producers":[]})"));
  EXPECT_EQ(body("/lookup?topic=t2"), R"({"channels":[],"producers":[]})");
}

TEST_F(LookupdV1, EphemeralKeysAreDeletedWithTheirLastProducer) {
  start();
  V1Peer a, b;
  ASSERT_TRUE(a.connect(tcp_port()));
  ASSERT_TRUE(b.connect(tcp_port()));
  ASSERT_TRUE(a.identify_as("a"));
  ASSERT_TRUE(b.identify_as("b"));
  EXPECT_EQ(a.command("REGISTER t c#ephemeral"), "OK");
  EXPECT_EQ(b.command("REGISTER t c#ephemeral"), "OK");
  EXPECT_EQ(a.command("REGISTER e#ephemeral"), "OK");
  EXPECT_EQ(a.command("UNREGISTER t c#ephemeral"), "OK");
  EXPECT_EQ(body("/channels?topic=t"), R"({"channels":["c#ephemeral"]})");
  EXPECT_EQ(b.command("UNREGISTER t c#ephemeral"), "OK");
  EXPECT_EQ(body("/channels?topic=t"), R"({"channels":[]})");
  EXPECT_EQ(a.command("UNREGISTER e#ephemeral"), "OK");
  EXPECT_EQ(get("/lookup?topic=e%23ephemeral")->status, 404);
  EXPECT_EQ(body("/topics"), R"({"topics":["t"]})");
}

struct BadInput {
  std::string name;
  bool identify_first;
  std::string bytes;
  std::string error;
};

TEST_F(LookupdV1, EveryErrorIsSentThenClosedAndHarmsNoOtherPeer) {
  start();
  V1Peer good;
  ASSERT_TRUE(good.connect(tcp_port()));
  ASSERT_TRUE(good.identify_as("good"));
  ASSERT_EQ(good.command("REGISTER keep ch"), "OK");

  const std::string size_minus_one("\xff\xff\xff\xff", 4);
  const std::string size_huge("\x7f\xff\xff\xff", 4);
  const std::vector<BadInput> cases = {
      {"unknown", false, "FOO bar\n", "E_INVALID invalid command FOO"},
      {"lowercase", false, "ping\n", "E_INVALID invalid command ping"},
      {"register_first", false, "REGISTER t\n", "E_INVALID client must IDENTIFY"},
      {"unregister_first", false, "UNREGISTER t\n", "E_INVALID client must IDENTIFY"},
      {"identify_again", true, "IDENTIFY\n", "E_INVALID cannot IDENTIFY again"},
      {"no_params", true, "REGISTER\n", "E_INVALID REGISTER insufficient number of params"},
      {"no_params_un", true, "UNREGISTER\n", "E_INVALID UNREGISTER insufficient number of params"},
      {"bad_topic", true, "REGISTER b@d\n", "E_BAD_TOPIC REGISTER topic name 'b@d' is not valid"},
      {"bad_channel", true, "UNREGISTER t b@d\n",
       "E_BAD_CHANNEL UNREGISTER channel name 'b@d' is not valid"},
      {"long_topic", true, "REGISTER " + std::string(65, 'x') + "\n",
       "E_BAD_TOPIC REGISTER topic name '" + std::string(65, 'x') + "' is not valid"},
      {"bad_json", false, "IDENTIFY\n" + std::string("\0\0\0\x05", 4) + "{nope",
       "E_BAD_BODY IDENTIFY failed to decode JSON body"},
      {"missing_fields", false, "IDENTIFY\n" + std::string("\0\0\0\x02", 4) + "{}",
       "E_BAD_BODY IDENTIFY missing fields"},
      {"negative_size", false, "IDENTIFY\n" + size_minus_one,
       "E_BAD_BODY IDENTIFY invalid body size -1"},
      {"huge_size", false, "IDENTIFY\n" + size_huge,
       "E_BAD_BODY IDENTIFY invalid body size 2147483647"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    V1Peer p;
    ASSERT_TRUE(p.connect(tcp_port()));
    if (c.identify_first) {
      ASSERT_TRUE(p.identify_as("bad"));
    }
    ASSERT_TRUE(p.send(c.bytes));
    EXPECT_EQ(p.read(), c.error);
    EXPECT_TRUE(p.wait_closed());
  }
  // Bad magic and garbage.
  {
    V1Peer p;
    ASSERT_TRUE(p.connect(tcp_port(), false));
    ASSERT_TRUE(p.send("  V2"));
    EXPECT_EQ(p.read(), "E_BAD_PROTOCOL");
    EXPECT_TRUE(p.wait_closed());
  }
  {
    V1Peer p;
    ASSERT_TRUE(p.connect(tcp_port(), false));
    ASSERT_TRUE(p.send(std::string("\x00\xff garbage\r\n\x01\x02", 14)));
    EXPECT_EQ(p.read(), "E_BAD_PROTOCOL");
    EXPECT_TRUE(p.wait_closed());
  }
  // The good peer is untouched and still served.
  EXPECT_EQ(good.command("PING"), "OK");
  EXPECT_EQ(good.command("REGISTER keep2"), "OK");
  EXPECT_EQ(body("/channels?topic=keep"), R"({"channels":["ch"]})");
  const std::string nodes = body("/nodes");
  EXPECT_NE(nodes.find(R"("broadcast_address":"good")"), std::string::npos) << nodes;
  EXPECT_EQ(nodes.find(R"("broadcast_address":"bad")"), std::string::npos) << nodes;
  EXPECT_EQ(body("/topics").find("\"t\""), std::string::npos);
}

TEST_F(LookupdV1, CloseMidIdentifyIsHarmless) {
  start();
  {
    V1Peer p;
    ASSERT_TRUE(p.connect(tcp_port()));
    ASSERT_TRUE(p.send("IDENTIFY\n" + std::string("\0\0\0\x40", 4) + "{\"broad"));
  }
  V1Peer q;
  ASSERT_TRUE(q.connect(tcp_port()));
  EXPECT_EQ(q.command("PING"), "OK");
}

TEST_F(LookupdV1, SigtermExitsCleanlyWithPeersConnected) {
  start();
  V1Peer p;
  ASSERT_TRUE(p.connect(tcp_port()));
  ASSERT_TRUE(p.identify_as("n1"));
  stopped_ = true;
  EXPECT_TRUE(lookupd_.stop()) << lookupd_.log();
  EXPECT_TRUE(p.wait_closed());
  EXPECT_NE(lookupd_.log().find("nsqlookupd: exited cleanly"), std::string::npos);
}

}  // namespace
}  // namespace nsq::integration::lookupd
