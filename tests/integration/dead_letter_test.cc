// Dead letters and message TTL (issue 21; docs/operations.md): the settings
// API, its checks, persistence in nsqd.dat (which Go nsqd still reads), and
// messages leaving a channel for its dead-letter topic over real sockets.

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using DeadLetterTest = HttpTest;

constexpr const char* kChannelSettings = "/channel/settings?topic=t&channel=c";

TEST_F(DeadLetterTest, SettingsApiChecksEverythingAndAppliesAllOrNothing) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(get("/topic/settings?topic=t"), 404, "TOPIC_NOT_FOUND"));
  EXPECT_TRUE(is_v1_error(get("/topic/settings"), 400, "MISSING_ARG_TOPIC"));
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  EXPECT_TRUE(is_v1_error(get(kChannelSettings), 404, "CHANNEL_NOT_FOUND"));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));

  EXPECT_TRUE(is_v1_ok(get("/topic/settings?topic=t"),
                       R"({"message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));
  EXPECT_TRUE(is_v1_ok(
      get(kChannelSettings),
      R"({"max_attempts":0,"dead_letter_topic":"","message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));
  EXPECT_TRUE(is_v1_ok(
      post(kChannelSettings, R"({"max_attempts":5,"dead_letter_topic":"t_dlq"})"),
      R"({"max_attempts":5,"dead_letter_topic":"t_dlq","message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));
  EXPECT_TRUE(is_v1_ok(post("/topic/settings?topic=t",
                            R"({"message_ttl":"2h","max_depth":0,"depth_policy":"reject"})"),
                       R"({"message_ttl":"2h0m0s","max_depth":0,"depth_policy":"reject"})"));

  for (const auto& [body, why] : std::vector<std::pair<std::string, std::string>>{
           {R"({"max_attempts":1,"colour":"red"})", "colour: unknown setting"},
           {R"({"max_attempts":"7"})", "max_attempts: must be an integer in 0..65535"},
           {R"({"max_attempts":-3})", "max_attempts: must be an integer in 0..65535"},
           {R"({"max_attempts":99999999999999999999})",
            "max_attempts: must be an integer in 0..65535"},
           {R"({"dead_letter_topic":"no spaces"})", "dead_letter_topic: not a valid topic name"},
           {R"({"message_ttl":"1000000h","max_depth":0,"depth_policy":"reject"})",
            "message_ttl: must be in 0..87600h"},
           {"[1]", "the body must be a JSON object"},
           {"", "the body must be a JSON object"}}) {
    EXPECT_TRUE(is_v1_error(post(kChannelSettings, body), 400, "INVALID_SETTINGS - " + why))
        << body;
  }
  EXPECT_TRUE(is_v1_error(post("/topic/settings?topic=t", R"({"max_attempts":1})"), 400,
                          "INVALID_SETTINGS - max_attempts: a channel setting"));
  // Nothing of the refused bodies was applied.
  EXPECT_TRUE(is_v1_ok(
      get(kChannelSettings),
      R"({"max_attempts":5,"dead_letter_topic":"t_dlq","message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));

  // Kept across a restart, in nsqd.dat.
  stop_clean();
  EXPECT_NE(dat().find(R"("settings":{"max_attempts":5,"dead_letter_topic":"t_dlq")"),
            std::string::npos)
      << dat();
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(
      get(kChannelSettings),
      R"({"max_attempts":5,"dead_letter_topic":"t_dlq","message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));
  EXPECT_TRUE(is_v1_ok(get("/topic/settings?topic=t"),
                       R"({"message_ttl":"2h0m0s","max_depth":0,"depth_policy":"reject"})"));
}

// Go nsqd v1.3.0 ignores the "settings" fields: it loads the same topics and channels.
TEST_F(DeadLetterTest, GoNsqdReadsADataDirectoryWithSettings) {
  const std::string go = testutil::reference_binary_path("nsqd");
  if (go.empty()) GTEST_SKIP() << "no Go reference nsqd";
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  ASSERT_TRUE(is_v1_ok(post("/topic/settings?topic=t",
                            R"({"message_ttl":"1h","max_depth":0,"depth_policy":"reject"})"),
                       R"({"message_ttl":"1h0m0s","max_depth":0,"depth_policy":"reject"})"));
  ASSERT_TRUE(is_v1_ok(
      post(kChannelSettings, R"({"max_attempts":4})"),
      R"({"max_attempts":4,"dead_letter_topic":"","message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));
  stop_clean();
  ASSERT_NE(dat().find("\"settings\""), std::string::npos) << dat();

  testutil::NsqdProcess go_nsqd;
  testutil::NsqdProcess::Options o;
  o.binary = go;
  o.data_path = data_dir_.path();
  o.require_http = true;
  ASSERT_EQ(go_nsqd.start(o), "");
  auto r = testutil::http_once(go_nsqd.http_port(), "GET", "/stats?format=json&topic=t");
  ASSERT_TRUE(r && r->status == 200);
  EXPECT_NE(r->body.find(R"("channel_name":"c")"), std::string::npos) << r->body;
  EXPECT_TRUE(go_nsqd.stop()) << go_nsqd.log();
}

TEST_F(DeadLetterTest, ARequeuedMessageOutOfAttemptsReachesTheDeadLetterTopic) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto dlq = consumer("t_dlq", "d", 10);
  auto c = consumer("t", "c", 1);
  ASSERT_TRUE(is_v1_ok(
      post(kChannelSettings, R"({"max_attempts":2,"dead_letter_topic":"t_dlq"})"),
      R"({"max_attempts":2,"dead_letter_topic":"t_dlq","message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));
  publish("t", "poison");
  for (int attempt = 1; attempt <= 2; ++attempt) {
    auto m = read_message(c);
    ASSERT_TRUE(m) << attempt;
    EXPECT_EQ(m->attempts, attempt);
    c.req(m->id, 0);
  }
  auto dead = read_message(dlq);
  ASSERT_TRUE(dead);
  EXPECT_EQ(dead->body, "poison");
  EXPECT_EQ(dead->attempts, 1) << "a new message in the dead-letter topic";
  EXPECT_TRUE(got_nothing(c)) << "delivered after its last attempt";
  EXPECT_EQ(channel_stat("t", "c", "dead_letter_count"), 1);
  EXPECT_EQ(channel_stat("t", "c", "depth"), 0);
}

// A deferred message comes due after its TTL ran out: not delivered.
TEST_F(DeadLetterTest, AMessagePastItsTtlIsNotDelivered) {
  start_http({"--default-message-ttl=150ms"});
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 10);
  auto p = client();
  p.dpub("t", 400, "too late");
  ASSERT_TRUE(got_response(p, "OK"));
  p.dpub("t", 10, "in time");
  ASSERT_TRUE(got_response(p, "OK"));
  auto m = read_message(c);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->body, "in time");
  EXPECT_TRUE(stats_eventually([&] {
    auto* ch = channel("t", "c");
    return ch && ch->HasMember("expired_count") && int_of(*ch, "expired_count") == 1;
  })) << stats_body_;
  EXPECT_TRUE(got_nothing(c));
  EXPECT_EQ(channel_stat("t", "c", "discarded_count"), 1) << "no dead-letter topic: dropped";
  EXPECT_TRUE(is_v1_ok(get("/topic/settings?topic=t"),
                       R"({"message_ttl":"150ms","max_depth":0,"depth_policy":"reject"})"));
}

TEST_F(DeadLetterTest, DefaultsForNewChannels) {
  start_http({"--default-max-attempts=3", "--default-dead-letter-topic=dlq"});
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t"), ""));
  ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=t&channel=c"), ""));
  EXPECT_TRUE(is_v1_ok(
      get(kChannelSettings),
      R"({"max_attempts":3,"dead_letter_topic":"dlq","message_ttl":"0s","max_depth":0,"depth_policy":"reject"})"));
  EXPECT_TRUE(is_v1_ok(get("/config/default_dead_letter_topic"), "dlq"));
}

}  // namespace
}  // namespace nsq::integration
