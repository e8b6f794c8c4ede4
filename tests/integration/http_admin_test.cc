// Topic and channel administration over HTTP (http-api.md §3 /topic/*,
// channel endpoints): every error of the tables, and the effect of each call
// on a raw TCP consumer, on /stats and on nsqd.dat (diskqueue.md §8).

#include <set>

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using HttpAdminTest = HttpTest;

const std::vector<std::string> kTopicOps = {"create", "delete", "empty", "pause", "unpause"};
const std::vector<std::string> kChannelOps = {"create", "delete", "empty", "pause", "unpause"};

// §3 /topic/*: the shared errors, and which operations validate the name.
TEST_F(HttpAdminTest, TopicErrors) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  for (auto& op : kTopicOps) {
    const std::string p = "/topic/" + op;
    SCOPED_TRACE(p);
    EXPECT_TRUE(is_v1_error(post(p), 400, "MISSING_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?channel=c"), 400, "MISSING_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=t&%zz"), 400, "INVALID_REQUEST"));
  }
  // create and empty validate the name...
  EXPECT_TRUE(is_v1_error(post("/topic/create?topic=bad!"), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/topic/create?topic="), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(
      is_v1_error(post("/topic/create?topic=" + std::string(65, 'x')), 400, "INVALID_TOPIC"));
  EXPECT_TRUE(is_v1_error(post("/topic/empty?topic=bad!"), 400, "INVALID_TOPIC"));
  // ... delete, pause and unpause do not: an invalid name is just not found.
  for (const char* op : {"delete", "pause", "unpause"})
    EXPECT_TRUE(
        is_v1_error(post(std::string("/topic/") + op + "?topic=bad!"), 404, "TOPIC_NOT_FOUND"))
        << op;
  for (const char* op : {"delete", "empty", "pause", "unpause"})
    EXPECT_TRUE(
        is_v1_error(post(std::string("/topic/") + op + "?topic=nosuch"), 404, "TOPIC_NOT_FOUND"))
        << op;
  ASSERT_TRUE(stats());
  EXPECT_TRUE((*doc_)["topics"].IsNull() || (*doc_)["topics"].Empty())
      << "an error created a topic: " << stats_body_;
}

// §3 /topic/create: 200 empty, idempotent, topic visible with no channels.
TEST_F(HttpAdminTest, TopicCreate) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  EXPECT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  EXPECT_TRUE(is_v1_ok(post("/topic/create?topic=t2%23ephemeral"), ""));
  ASSERT_TRUE(stats());
  auto* tp = topic("t");
  ASSERT_NE(tp, nullptr) << stats_body_;
  EXPECT_TRUE((*tp)["channels"].IsArray() && (*tp)["channels"].Empty()) << stats_body_;
  EXPECT_FALSE((*tp)["paused"].GetBool());
  EXPECT_NE(topic("t2#ephemeral"), nullptr) << stats_body_;
  EXPECT_TRUE(dat_eventually(R"({"name":"t","paused":false,"channels":null})")) << dat();
}

// §3 /topic/delete: subscribers are disconnected, queued data dropped.
TEST_F(HttpAdminTest, TopicDeleteClosesSubscribersAndDropsData) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 0);
  auto other = consumer("keep", "c", 10);
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "a\nb\nc"), "OK"));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=idle"), ""));
  EXPECT_TRUE(is_v1_ok(post("/topic/delete?topic=t"), ""));
  EXPECT_TRUE(c.wait_closed(kReply)) << "subscriber of a deleted topic still connected";
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("t"), nullptr) << stats_body_;
  EXPECT_TRUE(is_v1_error(post("/topic/delete?topic=t"), 404, "TOPIC_NOT_FOUND"));
  EXPECT_TRUE(dat_eventually_without(R"({"name":"t",)")) << dat();
  // The old data is gone: a new subscriber of the re-created topic gets nothing old.
  auto c2 = consumer("t", "c", 10);
  EXPECT_TRUE(got_nothing(c2));
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t", "new"), "OK"));
  auto m = read_message(c2);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "new");
  // Another topic's consumer is untouched.
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=keep", "k"), "OK"));
  m = read_message(other);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "k");
}

// §3 /topic/empty: drops what sits in the topic; the channels keep theirs.
TEST_F(HttpAdminTest, TopicEmptyLeavesChannels) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "c1\nc2\nc3"), "OK"));
  ASSERT_TRUE(stats_eventually([&] {
    return channel("t", "c") && int_of(*channel("t", "c"), "depth") == 3;
  })) << stats_body_;
  ASSERT_TRUE(is_v1_ok(post("/topic/pause?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "t1\nt2"), "OK"));
  EXPECT_EQ(topic_stat("t", "depth"), 2);
  EXPECT_TRUE(is_v1_ok(post("/topic/empty?topic=t"), ""));
  EXPECT_EQ(topic_stat("t", "depth"), 0);
  EXPECT_EQ(channel_stat("t", "c", "depth"), 3);
  ASSERT_TRUE(is_v1_ok(post("/topic/unpause?topic=t"), ""));
  auto c = consumer("t", "c", 10);
  std::set<std::string> got;
  for (int i = 0; i < 3; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    got.insert(m->body);
  }
  EXPECT_EQ(got, (std::set<std::string>{"c1", "c2", "c3"}));
  EXPECT_TRUE(got_nothing(c)) << "an emptied message was delivered";
}

// §3 /topic/pause: messages stay in the topic (depth) until unpause; nsqd.dat records the flag.
TEST_F(HttpAdminTest, TopicPauseHoldsMessages) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  EXPECT_TRUE(is_v1_ok(post("/topic/pause?topic=t"), ""));
  EXPECT_TRUE(
      dat_eventually(R"({"name":"t","paused":true,"channels":[{"name":"c","paused":false}]})"))
      << dat();
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "a\nb\nc"), "OK"));
  auto p = client();
  p.pub("t", "d");
  ASSERT_TRUE(got_response(p, "OK"));
  EXPECT_TRUE(got_nothing(c, 500ms)) << "a paused topic delivered";
  ASSERT_TRUE(stats("topic=t"));
  ASSERT_NE(topic("t"), nullptr) << stats_body_;
  EXPECT_TRUE((*topic("t"))["paused"].GetBool());
  EXPECT_EQ(int_of(*topic("t"), "depth"), 4);
  EXPECT_EQ(int_of(*channel("t", "c"), "depth"), 0);
  EXPECT_TRUE(is_v1_ok(post("/topic/pause?topic=t"), "")) << "pausing twice is fine";
  EXPECT_TRUE(is_v1_ok(post("/topic/unpause?topic=t"), ""));
  std::set<std::string> got;
  for (int i = 0; i < 4; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    got.insert(m->body);
    c.fin(m->id);
  }
  EXPECT_EQ(got, (std::set<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(topic_stat("t", "depth"), 0);
  EXPECT_FALSE((*topic("t"))["paused"].GetBool());
  EXPECT_TRUE(
      dat_eventually(R"({"name":"t","paused":false,"channels":[{"name":"c","paused":false}]})"))
      << dat();
}

// Channel endpoints: the common error table in its order, then CHANNEL_NOT_FOUND.
TEST_F(HttpAdminTest, ChannelErrors) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  for (auto& op : kChannelOps) {
    const std::string p = "/channel/" + op;
    SCOPED_TRACE(p);
    EXPECT_TRUE(is_v1_error(post(p + "?topic=t&channel=c&%zz"), 400, "INVALID_REQUEST"));
    EXPECT_TRUE(is_v1_error(post(p), 400, "MISSING_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?channel=c"), 400, "MISSING_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?channel=bad!"), 400, "MISSING_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=bad!&channel=c"), 400, "INVALID_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=bad!"), 400, "INVALID_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=&channel=c"), 400, "INVALID_ARG_TOPIC"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=t"), 400, "MISSING_ARG_CHANNEL"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=nosuch"), 400, "MISSING_ARG_CHANNEL"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=t&channel=bad!"), 400, "INVALID_ARG_CHANNEL"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=t&channel="), 400, "INVALID_ARG_CHANNEL"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=t&channel=" + std::string(65, 'c')), 400,
                            "INVALID_ARG_CHANNEL"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=nosuch&channel=bad!"), 400, "INVALID_ARG_CHANNEL"));
    EXPECT_TRUE(is_v1_error(post(p + "?topic=nosuch&channel=c"), 404, "TOPIC_NOT_FOUND"));
    if (op != "create") {
      EXPECT_TRUE(is_v1_error(post(p + "?topic=t&channel=nosuch"), 404, "CHANNEL_NOT_FOUND"));
    }
  }
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("nosuch"), nullptr) << "a channel call created its topic: " << stats_body_;
  ASSERT_NE(topic("t"), nullptr);
  EXPECT_TRUE((*topic("t"))["channels"].Empty()) << "an error created a channel: " << stats_body_;
}

// /channel/create: the channel exists (and keeps messages) before any consumer; nsqd.dat lists it.
TEST_F(HttpAdminTest, ChannelCreate) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  EXPECT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  EXPECT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), "")) << "idempotent";
  EXPECT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=e%23ephemeral"), ""));
  EXPECT_TRUE(
      dat_eventually(R"({"name":"t","paused":false,"channels":[{"name":"c","paused":false}]})"))
      << dat();
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "x\ny"), "OK"));
  ASSERT_TRUE(stats_eventually([&] {
    return channel("t", "c") && int_of(*channel("t", "c"), "depth") == 2;
  })) << stats_body_;
  EXPECT_EQ(int_of(*channel("t", "c"), "client_count"), 0);
  EXPECT_NE(channel("t", "e#ephemeral"), nullptr) << stats_body_;
  auto c = consumer("t", "c", 10);
  EXPECT_TRUE(read_message(c));
  EXPECT_TRUE(read_message(c));
}

// /channel/delete: its consumers are disconnected, other channels untouched.
TEST_F(HttpAdminTest, ChannelDeleteClosesConsumers) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto gone = consumer("t", "gone", 10);
  auto kept = consumer("t", "kept", 10);
  EXPECT_TRUE(is_v1_ok(post("/channel/delete?topic=t&channel=gone"), ""));
  EXPECT_TRUE(gone.wait_closed(kReply)) << "consumer of a deleted channel still connected";
  ASSERT_TRUE(stats());
  EXPECT_EQ(channel("t", "gone"), nullptr) << stats_body_;
  EXPECT_NE(channel("t", "kept"), nullptr) << stats_body_;
  EXPECT_TRUE(is_v1_error(post("/channel/delete?topic=t&channel=gone"), 404, "CHANNEL_NOT_FOUND"));
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t", "after"), "OK"));
  auto m = read_message(kept);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "after");
  EXPECT_TRUE(dat_eventually(R"("channels":[{"name":"kept","paused":false}])")) << dat();
}

// /channel/pause stops delivery to a subscribed consumer, unpause resumes it; nsqd.dat records it.
TEST_F(HttpAdminTest, ChannelPauseStopsDelivery) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  auto other = consumer("t", "other", 10);
  EXPECT_TRUE(is_v1_ok(post("/channel/pause?topic=t&channel=c"), ""));
  EXPECT_TRUE(dat_eventually(R"({"name":"c","paused":true})")) << dat();
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "a\nb"), "OK"));
  // The other channel still gets them, the paused one not.
  EXPECT_TRUE(read_message(other));
  EXPECT_TRUE(read_message(other));
  EXPECT_TRUE(got_nothing(c, 500ms)) << "a paused channel delivered";
  ASSERT_TRUE(stats("topic=t"));
  ASSERT_NE(channel("t", "c"), nullptr) << stats_body_;
  EXPECT_TRUE((*channel("t", "c"))["paused"].GetBool());
  EXPECT_FALSE((*channel("t", "other"))["paused"].GetBool());
  EXPECT_EQ(int_of(*channel("t", "c"), "depth"), 2);
  EXPECT_EQ(int_of(*channel("t", "c"), "in_flight_count"), 0);
  EXPECT_TRUE(is_v1_ok(post("/channel/unpause?topic=t&channel=c"), ""));
  std::set<std::string> got;
  for (int i = 0; i < 2; ++i) {
    auto m = read_message(c);
    ASSERT_TRUE(m);
    got.insert(m->body);
  }
  EXPECT_EQ(got, (std::set<std::string>{"a", "b"}));
  EXPECT_TRUE(dat_eventually(R"({"name":"c","paused":false})")) << dat();
}

// /channel/empty drops exactly the queued, in-flight and deferred messages,
// resets the consumer's in-flight count, and later messages flow again.
TEST_F(HttpAdminTest, ChannelEmptyDropsQueuedAndInFlight) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 1);
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "1\n2\n3\n4"), "OK"));
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t&defer=600000", "deferred"), "OK"));
  auto held = read_message(c);
  ASSERT_TRUE(held);
  EXPECT_TRUE(got_nothing(c, 200ms));
  ASSERT_TRUE(stats_eventually([&] {
    auto* ch = channel("t", "c");
    return ch && int_of(*ch, "depth") == 3 && int_of(*ch, "in_flight_count") == 1 &&
           int_of(*ch, "deferred_count") == 1;
  })) << stats_body_;
  EXPECT_TRUE(is_v1_ok(post("/channel/empty?topic=t&channel=c"), ""));
  ASSERT_TRUE(stats("topic=t"));
  auto* ch = channel("t", "c");
  ASSERT_NE(ch, nullptr) << stats_body_;
  EXPECT_EQ(int_of(*ch, "depth"), 0) << stats_body_;
  EXPECT_EQ(int_of(*ch, "in_flight_count"), 0) << stats_body_;
  EXPECT_EQ(int_of(*ch, "deferred_count"), 0) << stats_body_;
  EXPECT_EQ(int_of(*ch, "client_count"), 1) << "the consumer stays subscribed";
  auto* cl = find_named((*ch)["clients"], "version", "V2");
  ASSERT_NE(cl, nullptr) << stats_body_;
  EXPECT_EQ(int_of(*cl, "in_flight_count"), 0) << stats_body_;
  EXPECT_TRUE(got_nothing(c)) << "an emptied message was delivered";
  // RDY 1 and the in-flight slot freed by the reset: a new message arrives.
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t", "5"), "OK"));
  auto m = read_message(c);
  if (!m) stats("topic=t");
  ASSERT_TRUE(m) << "a message after /channel/empty not delivered to the RDY 1 consumer; "
                 << stats_body_;
  EXPECT_EQ(m->body, "5");
  c.fin(m->id);
  // The held message is no longer in flight.
  c.fin(held->id);
  EXPECT_TRUE(got_error(c, "E_FIN_FAILED FIN " + held->id + " failed ID not in flight"));
  EXPECT_TRUE(got_nothing(c));
}

}  // namespace
}  // namespace nsq::integration
