// Deferred and requeued timing survives a clean restart, and with
// --sync-publish a SIGKILL (issue 21; docs/operations.md): a DPUB'd or
// REQ'd-with-delay message is neither delivered before its time after nsqd
// restarts, nor lost; Go nsqd (which ignores the side file and the journal)
// would deliver it at once, as before.

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "integration/http_harness.h"
#include "nsq/base64.h"
#include "testutil/files.h"

namespace nsq::integration {
namespace {

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The due times (Unix ms) /channel/peek shows for the deferred messages, by body.
std::map<std::string, int64_t> deferred_due(Reply r) {
  std::map<std::string, int64_t> out;
  if (!r || r->status != 200) return out;
  rapidjson::Document d;
  d.Parse(r->body.c_str());
  if (d.HasParseError() || !d["messages"].IsArray()) return out;
  for (auto& m : d["messages"].GetArray()) {
    auto body = base64::decode(m["body"].GetString());
    out[body ? *body : "?"] = m["due"].GetInt64() / 1'000'000;
  }
  return out;
}

// Lines of the channel's journal of due times (a disk queue of its own):
// each ends in a newline, which nothing else in its files contains.
std::size_t journal_lines(const std::filesystem::path& dir) {
  std::size_t n = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (!f.path().filename().string().starts_with("t:c:deferred.diskqueue.0")) continue;
    const std::string bytes = testutil::read_file(f.path());
    n += static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n'));
  }
  return n;
}

class DeferredRestartTest : public HttpTest {
 protected:
  struct Due {
    int64_t requeued = 0, deferred = 0;  // Unix ms
  };

  // "requeued" REQ'd for 10 minutes by a consumer of t/c, and "deferred"
  // DPUB'd for 10 minutes.
  Due requeue_and_defer() {
    Due due;
    auto c = consumer("t", "c", 1);
    auto p = client();
    p.pub("t", "requeued");
    EXPECT_TRUE(got_response(p, "OK"));
    auto m = read_message(c);
    EXPECT_TRUE(m);
    if (!m) return due;
    due.requeued = unix_ms() + 600'000;
    c.req(m->id, 600'000);
    due.deferred = unix_ms() + 600'000;
    p.dpub("t", 600'000, "deferred");
    EXPECT_TRUE(got_response(p, "OK"));
    return due;
  }

  // After the restart: both show as deferred with their due time, before
  // any consumer came, and neither is delivered.
  void expect_still_deferred(const Due& expected) {
    ASSERT_TRUE(stats_eventually([&] {
      auto* ch = channel("t", "c");
      return ch && int_of(*ch, "deferred_count") == 2;
    }));
    auto due = deferred_due(get("/channel/peek?topic=t&channel=c&state=deferred"));
    ASSERT_EQ(due.size(), 2u);
    EXPECT_NEAR(static_cast<double>(due["requeued"]), static_cast<double>(expected.requeued), 2000);
    EXPECT_NEAR(static_cast<double>(due["deferred"]), static_cast<double>(expected.deferred), 2000);
    auto again = consumer("t", "c", 10);
    EXPECT_TRUE(got_nothing(again, 1000ms)) << "delivered before its time";
  }
};

TEST_F(DeferredRestartTest, TenMinuteDpubAndReqKeepTheirTimeAcrossACleanRestart) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  const Due due = requeue_and_defer();
  ASSERT_TRUE(stats_eventually([&] {
    auto* ch = channel("t", "c");
    return ch && int_of(*ch, "deferred_count") == 2;
  }));
  stop_clean();
  EXPECT_NE(testutil::read_file(data_dir_.path() / "t:c.diskqueue.deferred.dat").find(' '),
            std::string::npos);
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  expect_still_deferred(due);
}

TEST_F(DeferredRestartTest, WithSyncPublishTenMinuteDpubAndReqKeepTheirTimeAcrossASigkill) {
  start_http({"--sync-publish"});
  if (IsSkipped() || HasFatalFailure()) return;
  // The DPUB's OK came once its due time was on disk with it; a REQ has no
  // answer: its line is awaited in the journal's files.
  const Due due = requeue_and_defer();
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (journal_lines(data_dir_.path()) < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);  // polling files: nothing to wait on
  }
  ASSERT_GE(journal_lines(data_dir_.path()), 2u);
  ASSERT_TRUE(nsqd_->kill_now());
  nsqd_.reset();
  EXPECT_FALSE(std::filesystem::exists(data_dir_.path() / "t:c.diskqueue.deferred.dat"))
      << "no clean shutdown wrote the side file";
  start_http({"--sync-publish"});
  if (IsSkipped() || HasFatalFailure()) return;
  expect_still_deferred(due);
}

TEST_F(DeferredRestartTest, DeliveredOnceDueAfterTheRestart) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  const int64_t due = unix_ms() + 2500;
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t&defer=2500", "soon"), "OK"));
  stop_clean();
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 1);
  auto m = read_message(c, 6000ms);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "soon");
  EXPECT_GE(unix_ms(), due - 50) << "delivered before its time";
  EXPECT_FALSE(std::filesystem::exists(data_dir_.path() / "t:c.diskqueue.deferred.dat"))
      << "read once, then gone";
}

}  // namespace
}  // namespace nsq::integration
