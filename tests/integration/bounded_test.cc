// Bounded queues (issue 21; docs/operations.md): max_depth with the reject
// policy fails a publish that would not fit, all of an MPUB or nothing; with
// drop_oldest the oldest queued messages make room.

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using BoundedTest = HttpTest;

TEST_F(BoundedTest, RejectRefusesWhatDoesNotFitAllOrNothing) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/settings?topic=t&channel=c", R"({"max_depth":3})"),
                       R"({"max_attempts":0,"dead_letter_topic":"","message_ttl":"0s",)"
                       R"("max_depth":3,"depth_policy":"reject"})"));
  auto p = client();
  p.mpub("t", {"1", "2"});
  ASSERT_TRUE(got_response(p, "OK"));
  p.mpub("t", {"3", "4"});  // 2 + 2 > 3: none of it
  EXPECT_TRUE(got_fatal(p, "E_MPUB_FAILED MPUB failed topic t full"));
  EXPECT_EQ(channel_stat("t", "c", "depth"), 2) << "nothing of the refused MPUB";
  auto q = client();
  q.pub("t", "3");
  ASSERT_TRUE(got_response(q, "OK"));
  q.pub("t", "4");
  EXPECT_TRUE(got_fatal(q, "E_PUB_FAILED PUB failed topic t full"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t", "4"), 503, "TOPIC_FULL"));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=t", "4\n5"), 503, "TOPIC_FULL"));
  EXPECT_EQ(channel_stat("t", "c", "depth"), 3);

  // A consumer makes room: in flight does not count.
  auto c = consumer("t", "c", 1);
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "1");
  ASSERT_TRUE(stats_eventually([&] {
    auto* ch = channel("t", "c");
    return ch && int_of(*ch, "depth") == 2;
  }));
  EXPECT_TRUE(is_v1_ok(post("/pub?topic=t", "4"), "OK"));
}

TEST_F(BoundedTest, ABoundedTopicWithoutChannelsRejectsToo) {
  start_http({"--default-max-depth=2"});
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "a\nb"), "OK"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t", "c"), 503, "TOPIC_FULL"));
  EXPECT_EQ(topic_stat("t", "depth"), 2);
  EXPECT_TRUE(is_v1_ok(get("/config/default_max_depth"), "2"));
}

TEST_F(BoundedTest, DropOldestKeepsTheNewestAndCounts) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/settings?topic=t&channel=c",
                            R"({"max_depth":3,"depth_policy":"drop_oldest"})"),
                       R"({"max_attempts":0,"dead_letter_topic":"","message_ttl":"0s",)"
                       R"("max_depth":3,"depth_policy":"drop_oldest"})"));
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "1\n2\n3\n4\n5"), "OK"));
  EXPECT_EQ(channel_stat("t", "c", "depth"), 3);
  EXPECT_EQ(channel_stat("t", "c", "dropped_count"), 2);
  auto c = consumer("t", "c", 10);
  std::vector<std::string> got;
  for (int i = 0; i < 3; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    got.push_back(m->body);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"3", "4", "5"}));
  EXPECT_TRUE(is_v1_error(post("/channel/settings?topic=t&channel=c", R"({"depth_policy":"grow"})"),
                          400, "INVALID_SETTINGS - depth_policy: must be reject or drop_oldest"));
}

}  // namespace
}  // namespace nsq::integration
