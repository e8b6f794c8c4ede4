// Drain mode (nsqio/nsq #1302; docs/operations.md): --sigterm=drain or PUT
// /config/drain refuses new messages, topics and channels, lets consumers
// take what is queued (deferred included), then exits 0; PUT
// /config/shutdown exits at once, draining or not, losing nothing.

#include <sys/wait.h>

#include <unistd.h>

#include <csignal>
#include <thread>

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using DrainTest = HttpTest;

constexpr ms kExit{10000};

// Polls another process's state (lookupd's answers) until `pred` holds.
template <class Pred>
bool eventually(Pred pred, ms timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

class DrainExit : public DrainTest {
 protected:
  // nsqd exits by itself with code 0; the fixture forgets it.
  ::testing::AssertionResult exits_cleanly() {
    auto status = nsqd_->wait_exit(kExit);
    const std::string log = nsqd_->log();
    if (!status) return ::testing::AssertionFailure() << "still running; log:\n" << tail(log);
    nsqd_.reset();
    if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
      return ::testing::AssertionFailure()
             << testutil::ServerProcess::describe_status(*status) << "; log:\n"
             << tail(log);
    }
    log_ = log;
    return ::testing::AssertionSuccess();
  }
  std::string log_;
};

TEST_F(DrainExit, SigtermDrainsThenExits) {
  start_http({"--sigterm=drain"});
  if (IsSkipped() || HasFatalFailure()) return;
  auto first = consumer("t", "c", 0);
  auto p = client();
  p.mpub("t", {"a", "b", "c"});
  ASSERT_TRUE(got_response(p, "OK"));
  p.dpub("t", 300, "later");
  ASSERT_TRUE(got_response(p, "OK"));

  ASSERT_TRUE(nsqd_->send_signal(SIGTERM));
  ASSERT_TRUE(nsqd_->wait_for_log("DRAIN: refusing new messages", kReply)) << nsqd_->log();
  EXPECT_TRUE(is_v1_ok(get("/config/drain"), "true"));
  auto info = get("/info");
  ASSERT_TRUE(info);
  EXPECT_NE(info->body.find("\"draining\":true"), std::string::npos) << info->body;
  EXPECT_TRUE(stats() && (*doc_)["draining"].IsTrue()) << stats_body_;

  // Nothing new: messages, topics, channels.
  p.pub("t", "refused");
  EXPECT_TRUE(got_fatal(p, "E_PUB_FAILED PUB failed draining"));
  auto m = client();
  m.mpub("other", {"x"});
  EXPECT_TRUE(got_fatal(m, "E_MPUB_FAILED MPUB failed draining"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t", "x"), 503, "DRAINING"));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=t", "x\ny"), 503, "DRAINING"));
  EXPECT_TRUE(is_v1_error(post("/topic/create?topic=fresh"), 503, "DRAINING"));
  EXPECT_TRUE(is_v1_error(post("/channel/create?topic=t&channel=fresh"), 503, "DRAINING"));
  EXPECT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  auto s = client();
  s.sub("t", "fresh");
  EXPECT_TRUE(got_fatal(s, "E_SUB_FAILED SUB failed draining"));
  EXPECT_FALSE(topic("fresh"));

  // A second SIGTERM does not cut the drain short.
  ASSERT_TRUE(nsqd_->send_signal(SIGTERM));
  ASSERT_TRUE(nsqd_->wait_for_log("already draining", kReply));
  EXPECT_TRUE(nsqd_->alive());

  // A second consumer of an existing channel helps; everything queued,
  // the deferred message included, is delivered before nsqd goes.
  auto helper = consumer("t", "c", 0);
  first.rdy(10);
  std::set<std::string> got;
  for (int i = 0; i < 4; ++i) {
    auto msg = read_message(first);
    ASSERT_TRUE(msg) << i;
    got.insert(msg->body);
    EXPECT_TRUE(nsqd_->alive()) << "exited with " << msg->body << " in flight";
    first.fin(msg->id);
  }
  EXPECT_EQ(got, (std::set<std::string>{"a", "b", "c", "later"}));
  ASSERT_TRUE(exits_cleanly());
  EXPECT_NE(log_.find("DRAIN: every topic and channel is delivered, shutting down"),
            std::string::npos)
      << tail(log_);
}

TEST_F(DrainExit, PutConfigDrainOnAnEmptyNodeExits) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(get("/config/drain"), "false"));
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/drain", ""), "true"));
  ASSERT_TRUE(exits_cleanly());
}

// A drain waits for consumers that may never come: /config/shutdown ends it
// as a clean shutdown, and the queued messages are there after a restart.
TEST_F(DrainExit, ShutdownOverridesADrainAndKeepsTheMessages) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "1\n2\n3"), "OK"));
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/drain", "anything"), "true"));
  EXPECT_TRUE(is_v1_error(get("/config/shutdown"), 400, "INVALID_OPTION"));
  EXPECT_FALSE(nsqd_->wait_exit(300ms)) << "drained with 3 messages queued";
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/shutdown", ""), "OK"));
  ASSERT_TRUE(exits_cleanly());
  EXPECT_NE(log_.find("PUT /config/shutdown received, shutting down"), std::string::npos);

  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_EQ(channel_stat("t", "c", "depth"), 3);
  EXPECT_TRUE(is_v1_ok(get("/config/drain"), "false")) << "a drain does not outlive the process";
}

// lookupd keeps pointing consumers at a draining nsqd, and forgets it once
// the drain is done.
TEST_F(DrainExit, LookupdListsTheNodeUntilTheDrainIsDone) {
  auto bin = testutil::nsqlookupd_binary_path();
  if (bin.empty() || ::access(bin.c_str(), X_OK) != 0) GTEST_SKIP() << "nsqlookupd not built";
  testutil::NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  start_http(
      {"--sigterm=drain", "--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port())});
  if (IsSkipped() || HasFatalFailure()) return;
  const std::string this_node = "\"tcp_port\":" + std::to_string(port());
  auto producers = [&] {
    auto r = testutil::http_once(lookupd.http_port(), "GET", "/lookup?topic=t");
    if (!r || r->status != 200) return std::string("none");
    return r->body.find(this_node) != std::string::npos ? std::string("listed")
                                                        : std::string("none");
  };
  auto c = consumer("t", "c", 0);
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t", "last"), "OK"));
  ASSERT_TRUE(eventually([&] { return producers() == "listed"; }, kExit));
  ASSERT_TRUE(nsqd_->send_signal(SIGTERM));
  ASSERT_TRUE(nsqd_->wait_for_log("DRAIN: refusing new messages", kReply));
  EXPECT_EQ(producers(), "listed") << "consumers still find a draining node";
  c.rdy(1);
  auto m = read_message(c);
  ASSERT_TRUE(m);
  c.fin(m->id);
  ASSERT_TRUE(exits_cleanly());
  EXPECT_TRUE(eventually([&] { return producers() == "none"; }, kExit));
}

TEST_F(DrainTest, DefaultSigtermIsACleanShutdown) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(get("/config/sigterm"), "clean-shutdown"));
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t", "kept"), "OK"));
  stop_clean();
}

}  // namespace
}  // namespace nsq::integration
