#include "core/queue_settings.h"

#include <gtest/gtest.h>

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;

TEST(QueueSettings, JsonOfEachScope) {
  QueueSettings s;
  s.max_attempts = 5;
  s.dead_letter_topic = "dlq";
  s.message_ttl = 90s;
  EXPECT_EQ(
      settings_json(s, SettingsScope::channel),
      R"({"max_attempts":5,"dead_letter_topic":"dlq","message_ttl":"1m30s","max_depth":0,"depth_policy":"reject"})");
  EXPECT_EQ(settings_json(s, SettingsScope::topic),
            R"({"message_ttl":"1m30s","max_depth":0,"depth_policy":"reject"})");
  EXPECT_EQ(settings_json(QueueSettings{}, SettingsScope::topic),
            R"({"message_ttl":"0s","max_depth":0,"depth_policy":"reject"})");
}

TEST(QueueSettings, FieldsGivenReplaceTheRest) {
  QueueSettings base;
  base.max_attempts = 3;
  base.dead_letter_topic = "old";
  auto s =
      apply_settings_json(base, R"({"dead_letter_topic":"new#ephemeral"})", SettingsScope::channel);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->max_attempts, 3);
  EXPECT_EQ(s->dead_letter_topic, "new#ephemeral");
  s = apply_settings_json(base, R"({"message_ttl":"250ms","max_attempts":0})",
                          SettingsScope::channel);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->message_ttl, 250ms);
  EXPECT_EQ(s->max_attempts, 0);
  s = apply_settings_json(base, R"({"message_ttl":60000})", SettingsScope::topic);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->message_ttl, 60s) << "an integer is milliseconds";
  s = apply_settings_json(base, R"({"max_depth":100,"depth_policy":"drop_oldest"})",
                          SettingsScope::topic);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->drops_oldest());
  EXPECT_FALSE(s->rejects_beyond());
  s = apply_settings_json(base, R"({"dead_letter_topic":""})", SettingsScope::channel);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->dead_letter_topic, "") << "empty turns it off";
  EXPECT_TRUE(apply_settings_json(base, "{}", SettingsScope::channel));
}

TEST(QueueSettings, BadInputNamesTheFieldAndChangesNothing) {
  const auto error = [](std::string_view json, SettingsScope scope = SettingsScope::channel) {
    auto s = apply_settings_json(QueueSettings{}, json, scope);
    return s ? std::string("accepted") : s.error();
  };
  EXPECT_EQ(error("[]"), "the body must be a JSON object");
  EXPECT_EQ(error("{"), "the body must be a JSON object");
  EXPECT_EQ(error(""), "the body must be a JSON object");
  EXPECT_EQ(error(R"({"colour":"red"})"), "colour: unknown setting");
  EXPECT_EQ(error(R"({"max_attempts":-1})"), "max_attempts: must be an integer in 0..65535");
  EXPECT_EQ(error(R"({"max_attempts":65536})"), "max_attempts: must be an integer in 0..65535");
  EXPECT_EQ(error(R"({"max_attempts":1.5})"), "max_attempts: must be an integer in 0..65535");
  EXPECT_EQ(error(R"({"max_attempts":"3"})"), "max_attempts: must be an integer in 0..65535");
  EXPECT_EQ(error(R"({"max_attempts":18446744073709551615})"),
            "max_attempts: must be an integer in 0..65535");
  EXPECT_EQ(error(R"({"dead_letter_topic":5})"), "dead_letter_topic: must be a string");
  EXPECT_EQ(error(R"({"dead_letter_topic":"bad name"})"),
            "dead_letter_topic: not a valid topic name");
  EXPECT_EQ(error(R"({"message_ttl":"soon"})"), "message_ttl: not a duration (e.g. \"10m\")");
  EXPECT_EQ(error(R"({"message_ttl":"-1s"})"), "message_ttl: must be in 0..87600h");
  EXPECT_EQ(error(R"({"message_ttl":"87601h","max_depth":0,"depth_policy":"reject"})"),
            "message_ttl: must be in 0..87600h");
  EXPECT_EQ(error(R"({"message_ttl":1e3})"),
            "message_ttl: must be a duration string or milliseconds, 0..87600h");
  EXPECT_EQ(error(R"({"message_ttl":"1us"})"), "message_ttl: under a millisecond");
  EXPECT_EQ(error(R"({"max_attempts":2})", SettingsScope::topic),
            "max_attempts: a channel setting");
  EXPECT_EQ(error(R"({"max_depth":-1})"), "max_depth: must be an integer in 0..2^40");
  EXPECT_EQ(error(R"({"max_depth":1099511627777})"), "max_depth: must be an integer in 0..2^40");
  EXPECT_EQ(error(R"({"depth_policy":"grow"})"), "depth_policy: must be reject or drop_oldest");
  EXPECT_EQ(error(R"({"depth_policy":1})"), "depth_policy: must be reject or drop_oldest");
  // One bad field: the good ones before it are not applied either.
  EXPECT_EQ(error(R"({"max_attempts":2,"message_ttl":"x"})"),
            "message_ttl: not a duration (e.g. \"10m\")");
}

}  // namespace
}  // namespace nsq::nsqd
