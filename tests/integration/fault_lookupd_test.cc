// nsqlookupd killed and restarted under load (issue 8). nsqd keeps serving
// its clients while lookupd is gone, and registers everything again with
// the restarted lookupd.
//
// When re-registration happens: nsqd talks to a lookupd on each topic or
// channel change and on its PING every 15 s. A command that finds the old
// connection dead reconnects at once (lookup_client.cc), and every connect
// sends IDENTIFY and then REGISTER for every topic and channel. So the first
// topic created after the restart re-registers everything; without one it
// takes up to one ping interval (15 s, not tested here to keep CI short,
// see docs/RELIABILITY.md).

#include <rapidjson/document.h>

#include "integration/fault_harness.h"

namespace nsq::integration {
namespace {

using namespace fault;
using testutil::NsqlookupdProcess;

// True if lookupd's /lookup?topic=<topic> lists a producer on tcp_port.
bool registered(int lookupd_http, const std::string& topic, int tcp_port) {
  auto r = testutil::http_once(lookupd_http, "GET", "/lookup?topic=" + topic);
  if (!r || r->status != 200) return false;
  rapidjson::Document d;
  d.Parse(r->body.c_str());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("producers")) return false;
  for (const auto& p : d["producers"].GetArray()) {
    if (p.HasMember("tcp_port") && p["tcp_port"].GetInt() == tcp_port) return true;
  }
  return false;
}

class FaultLookupdTest : public NsqdTest {
 protected:
  void SetUp() override {
    NsqdTest::SetUp();
    if (IsSkipped()) return;
    auto bin = testutil::nsqlookupd_binary_path();
    if (bin.empty() || ::access(bin.c_str(), X_OK) != 0) GTEST_SKIP() << "nsqlookupd not built";
  }
};

TEST_F(FaultLookupdTest, KilledAndRestartedUnderLoadNsqdServesAndReregisters) {
  auto lookupd = std::make_unique<NsqlookupdProcess>();
  ASSERT_EQ(lookupd->start({}), "");
  const int ltcp = lookupd->tcp_port();
  const int lhttp = lookupd->http_port();
  start({"--lookupd-tcp-address=127.0.0.1:" + std::to_string(ltcp)});
  publish("lk", "first");
  ASSERT_TRUE(eventually([&] { return registered(lhttp, "lk", port()); }, 10000ms))
      << "initial registration";

  BackgroundTraffic load(port(), "lk_load");
  ASSERT_TRUE(lookupd->kill_now());
  lookupd.reset();

  // lookupd gone: publishing, creating topics and consuming all go on.
  publish("lk_while_down", "x");
  {
    RawClient c = consumer("lk", "c", 1);
    auto m = read_message(c);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->body, "first");
    c.fin(m->id);
  }

  // Same ports, as an operator's restart would use.
  lookupd = std::make_unique<NsqlookupdProcess>();
  NsqlookupdProcess::Options lo;
  lo.tcp_address = "127.0.0.1:" + std::to_string(ltcp);
  lo.http_address = "127.0.0.1:" + std::to_string(lhttp);
  ASSERT_EQ(lookupd->start(lo), "");

  // The next topic change makes nsqd reconnect, and the connect registers
  // every topic - including those created while lookupd was down.
  publish("lk_after", "y");
  // The REGISTERs of one reconnect arrive one after another: wait for each.
  for (const char* topic : {"lk", "lk_while_down", "lk_after", "lk_load"}) {
    EXPECT_TRUE(eventually([&] { return registered(lhttp, topic, port()); }, 10000ms)) << topic;
  }

  EXPECT_EQ(load.stop(), "") << "traffic during the lookupd outage";
  EXPECT_TRUE(nsqd_->alive());
  EXPECT_TRUE(lookupd->stop());
}

// A topic created over HTTP asks lookupd for its channels before the request
// is answered, as Go's GetTopic: with lookupd stalled (SIGSTOP) the create
// waits for the query's timeout, and then a channel created and a message
// published next are in that channel at once, not left in the topic until a
// background query ends.
TEST_F(FaultLookupdTest, StalledLookupdHttpCreateAnswersOnceTheTopicDelivers) {
  NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  start({"--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port()),
         "--http-client-request-timeout=1s"},
        /*require_http=*/true);
  publish("warm", "x");  // registered: nsqd knows lookupd's HTTP port
  ASSERT_TRUE(eventually([&] { return registered(lookupd.http_port(), "warm", port()); }, 10000ms));

  ASSERT_TRUE(lookupd.send_signal(SIGSTOP));
  const auto before = std::chrono::steady_clock::now();
  auto created = testutil::http_once(http_port(), "POST", "/topic/create?topic=orders");
  const auto took = std::chrono::steady_clock::now() - before;
  ASSERT_TRUE(created && created->status == 200);
  EXPECT_GE(took, 900ms) << "the create waited for lookupd's answer (its timeout)";
  auto channel =
      testutil::http_once(http_port(), "POST", "/channel/create?topic=orders&channel=billing");
  ASSERT_TRUE(channel && channel->status == 200);
  auto pub = testutil::http_once(http_port(), "POST", "/pub?topic=orders", "m");
  ASSERT_TRUE(pub && pub->status == 200);

  auto stats = testutil::http_once(http_port(), "GET", "/stats?format=json&topic=orders");
  ASSERT_TRUE(lookupd.send_signal(SIGCONT));
  ASSERT_TRUE(stats && stats->status == 200);
  rapidjson::Document d;
  d.Parse(stats->body.c_str());
  ASSERT_TRUE(d.IsObject() && d["topics"].IsArray() && d["topics"].Size() == 1) << stats->body;
  const auto& topic = d["topics"][0];
  EXPECT_EQ(topic["depth"].GetInt64(), 0) << stats->body;
  ASSERT_EQ(topic["channels"].Size(), 1u) << stats->body;
  EXPECT_EQ(topic["channels"][0]["depth"].GetInt64(), 1) << stats->body;
  EXPECT_TRUE(lookupd.stop());
}

}  // namespace
}  // namespace nsq::integration
