// A --data-path written by Go nsqd v1.3.0 (fixtures/README.md): our nsqd must
// deliver exactly what Go left there (diskqueue.md, nsqd.dat §8).

#include <rapidjson/document.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "integration/harness.h"
#include "testutil/files.h"

namespace nsq::integration {
namespace {

class GoDataDirTest : public NsqdTest {
 protected:
  void SetUp() override {
    NsqdTest::SetUp();
    if (IsSkipped()) return;
    const std::string fixture = NSQ_TEST_GO_DATADIR_FIXTURE;
    if (!std::filesystem::exists(fixture)) GTEST_SKIP() << "no fixture at " << fixture;
    std::string cmd = "tar -xzf '" + fixture + "' -C '" + data_dir_.path().string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    ASSERT_TRUE(std::filesystem::exists(data_dir_.path() / "nsqd.dat"));
    start();
  }

  // Reads until `want` distinct bodies arrived (FINing them), checks each once, then quiet.
  std::set<std::string> drain(RawClient& c, std::size_t want) {
    std::set<std::string> got;
    while (got.size() < want) {
      auto r = c.read_skip_heartbeats(5000ms);
      if (r.status != RawClient::ReadStatus::frame) {
        ADD_FAILURE() << "got " << got.size() << " of " << want << ", then " << r.describe();
        return got;
      }
      auto m = testutil::to_test_message(r.frame);
      if (!m) {
        ADD_FAILURE() << r.describe();
        return got;
      }
      EXPECT_TRUE(got.insert(m->body).second) << "duplicate " << m->body;
      EXPECT_EQ(m->attempts, 1) << m->body;
      EXPECT_GT(m->timestamp_ns, 1'600'000'000'000'000'000) << m->body;
      c.fin(m->id);
    }
    EXPECT_TRUE(got_nothing(c, 500ms)) << "more than " << want << " messages";
    return got;
  }

  static std::set<std::string> expected(const char* fmt, int n) {
    std::set<std::string> s;
    char buf[32];
    for (int i = 0; i < n; ++i) {
      std::snprintf(buf, sizeof buf, fmt, i);
      s.insert(buf);
    }
    return s;
  }
};

TEST_F(GoDataDirTest, BillingChannelDeliversEveryOrderOnce) {
  auto c = consumer("orders", "billing", 2500);
  EXPECT_EQ(drain(c, 1000), expected("order-%04d", 1000));
}

TEST_F(GoDataDirTest, EventsGoToTheFirstNewChannel) {
  auto c = consumer("events", "newchan", 100);
  EXPECT_EQ(drain(c, 50), expected("event-%02d", 50));
}

TEST_F(GoDataDirTest, PausedAuditChannelDeliversNothing) {
  auto c = consumer("orders", "audit", 100);
  EXPECT_TRUE(got_nothing(c, 1000ms)) << "paused channel orders:audit delivered";
  if (!need_http()) return;
  auto r =
      testutil::http_request(http_port(), "POST", "/channel/unpause?topic=orders&channel=audit");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no reply");
  EXPECT_EQ(drain(c, 1000), expected("order-%04d", 1000));
}

TEST_F(GoDataDirTest, EphemeralTopicAbsentAndMetadataRewritten) {
  if (need_http()) {
    auto r = testutil::http_request(http_port(), "GET", "/stats?format=json");
    ASSERT_TRUE(r && r->status == 200);
    EXPECT_EQ(r->body.find("scratch"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("\"orders\""), std::string::npos) << r->body;
  }
  // An ephemeral consumer of the same name gets nothing old.
  auto c = consumer("scratch#ephemeral", "c", 10);
  EXPECT_TRUE(got_nothing(c, 500ms));
  c.close();
  stop_clean();
  auto dat = testutil::read_file(data_dir_.path() / "nsqd.dat");
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(dat.c_str()).HasParseError()) << dat;
  EXPECT_EQ(dat.find("scratch"), std::string::npos) << dat;
  EXPECT_NE(dat.find(R"({"name":"audit","paused":true})"), std::string::npos) << dat;
  EXPECT_NE(dat.find(R"({"name":"billing","paused":false})"), std::string::npos) << dat;
  EXPECT_NE(dat.find(R"({"name":"events","paused":false,"channels":null})"), std::string::npos)
      << dat;
}

// The Go queues survive a round trip through our nsqd untouched.
TEST_F(GoDataDirTest, RestartWithoutConsumingKeepsEverything) {
  stop_clean();
  start();
  auto c = consumer("orders", "billing", 2500);
  EXPECT_EQ(drain(c, 1000), expected("order-%04d", 1000));
  auto e = consumer("events", "x", 100);
  EXPECT_EQ(drain(e, 50), expected("event-%02d", 50));
}

}  // namespace
}  // namespace nsq::integration
