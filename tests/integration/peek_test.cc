// Peek and inspect (issue 21; docs/operations.md): copies of queued,
// in-flight and deferred messages, from memory and the disk queue, with
// nothing consumed or reordered.

#include <rapidjson/document.h>

#include "integration/http_harness.h"
#include "nsq/base64.h"

namespace nsq::integration {
namespace {

using PeekTest = HttpTest;

struct Peeked {
  std::vector<std::string> bodies;
  std::vector<int64_t> attempts;
  std::vector<int64_t> due;  // 0 when absent
  std::string raw;
};

class PeekScenario : public PeekTest {
 protected:
  Peeked peek(const std::string& target) {
    Peeked out;
    auto r = get(target);
    if (!r || r->status != 200) {
      ADD_FAILURE() << target << ": " << show(r);
      return out;
    }
    out.raw = r->body;
    rapidjson::Document d;
    d.Parse(r->body.c_str());
    if (d.HasParseError() || !d.IsObject() || !d["messages"].IsArray()) {
      ADD_FAILURE() << r->body;
      return out;
    }
    for (auto& m : d["messages"].GetArray()) {
      EXPECT_EQ(join(keys_of(m)).substr(0, 30),
                "id,timestamp,attempts,body" + std::string(m.HasMember("due") ? ",due" : ""))
          << r->body;
      EXPECT_EQ(std::string(m["id"].GetString()).size(), 16u);
      auto body = base64::decode(m["body"].GetString());
      out.bodies.push_back(body ? *body : "<not base64>");
      out.attempts.push_back(m["attempts"].GetInt64());
      out.due.push_back(m.HasMember("due") ? m["due"].GetInt64() : 0);
    }
    return out;
  }
};

TEST_F(PeekScenario, QueuedFromMemoryAndDiskNothingConsumed) {
  start_http({"--mem-queue-size=2"});
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "1\n2\n3\n4\n5"), "OK"));  // 3 of them on disk
  ASSERT_EQ(channel_stat("t", "c", "backend_depth"), 3);
  const auto all = std::vector<std::string>{"1", "2", "3", "4", "5"};
  EXPECT_EQ(peek("/channel/peek?topic=t&channel=c&n=10").bodies, all);
  EXPECT_EQ(peek("/channel/peek?topic=t&channel=c&n=10&state=queued").bodies, all) << "again";
  EXPECT_EQ(peek("/channel/peek?topic=t&channel=c&n=4").bodies,
            (std::vector<std::string>{"1", "2", "3", "4"}));
  EXPECT_EQ(channel_stat("t", "c", "depth"), 5);
  EXPECT_EQ(channel_stat("t", "c", "backend_depth"), 3) << "the disk queue's reader did not move";
  // Delivered as if never peeked: all of them, first attempts.
  auto c = consumer("t", "c", 10);
  std::vector<std::string> got;
  for (int i = 0; i < 5; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m) << i;
    EXPECT_EQ(m->attempts, 1);
    got.push_back(m->body);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, all);
}

TEST_F(PeekScenario, InFlightAndDeferredShowWhenTheyAreDue) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 2, R"({"msg_timeout":60000})");
  auto p = client();
  p.mpub("t", {"a", "b", "c"});
  ASSERT_TRUE(got_response(p, "OK"));
  p.dpub("t", 600000, "later");
  ASSERT_TRUE(got_response(p, "OK"));
  ASSERT_TRUE(read_message(c));
  ASSERT_TRUE(read_message(c));
  const auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto inflight = peek("/channel/peek?topic=t&channel=c&state=in_flight&n=10");
  ASSERT_EQ(inflight.bodies.size(), 2u) << inflight.raw;
  for (auto due : inflight.due) {
    EXPECT_GT(due, now_ns + 50'000'000'000LL);
    EXPECT_LT(due, now_ns + 61'000'000'000LL);
  }
  EXPECT_EQ(inflight.attempts, (std::vector<int64_t>{1, 1}));
  auto deferred = peek("/channel/peek?topic=t&channel=c&state=deferred");
  ASSERT_EQ(deferred.bodies, (std::vector<std::string>{"later"}));
  EXPECT_GT(deferred.due[0], now_ns + 590'000'000'000LL);
  EXPECT_EQ(peek("/channel/peek?topic=t&channel=c").bodies, (std::vector<std::string>{"c"}));
  EXPECT_EQ(channel_stat("t", "c", "in_flight_count"), 2);
  EXPECT_EQ(channel_stat("t", "c", "deferred_count"), 1);
}

TEST_F(PeekScenario, ATopicWithoutChannelsAndBadRequests) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "x\ny\nz"), "OK"));
  EXPECT_EQ(peek("/topic/peek?topic=t&n=2").bodies, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(topic_stat("t", "depth"), 3);
  for (const char* bad : {"n=0", "n=1001", "n=abc", "n=-1", "n=99999999999999999999"}) {
    EXPECT_TRUE(is_v1_error(get(std::string("/topic/peek?topic=t&") + bad), 400,
                            "INVALID_N - want 1..1000"))
        << bad;
  }
  EXPECT_TRUE(is_v1_error(get("/topic/peek?topic=nope"), 404, "TOPIC_NOT_FOUND"));
  EXPECT_TRUE(is_v1_error(get("/topic/peek"), 400, "MISSING_ARG_TOPIC"));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  EXPECT_TRUE(is_v1_error(get("/channel/peek?topic=t&channel=c&state=gone"), 400,
                          "INVALID_STATE - want queued, in_flight or deferred"));
  EXPECT_TRUE(is_v1_error(get("/channel/peek?topic=t&channel=nope"), 404, "CHANNEL_NOT_FOUND"));
}

}  // namespace
}  // namespace nsq::integration
