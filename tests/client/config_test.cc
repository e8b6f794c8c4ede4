#include "nsq/client/config.h"

#include <gtest/gtest.h>

namespace nsq::client {
namespace {

using namespace std::chrono_literals;

TEST(ClientConfig, DefaultsAreGoNsqs) {
  Config c;
  EXPECT_EQ(c.dial_timeout, 1s);
  EXPECT_EQ(c.read_timeout, 60s);
  EXPECT_EQ(c.write_timeout, 1s);
  EXPECT_EQ(c.lookupd_poll_interval, 60s);
  EXPECT_DOUBLE_EQ(c.lookupd_poll_jitter, 0.3);
  EXPECT_EQ(c.max_requeue_delay, 15min);
  EXPECT_EQ(c.default_requeue_delay, 90s);
  EXPECT_EQ(c.max_backoff_duration, 2min);
  EXPECT_EQ(c.backoff_multiplier, 1s);
  EXPECT_EQ(c.max_attempts, 5);
  EXPECT_EQ(c.rdy_redistribute_interval, 5s);
  EXPECT_EQ(c.heartbeat_interval, 30s);
  EXPECT_EQ(c.output_buffer_size, 16384);
  EXPECT_EQ(c.output_buffer_timeout, 250ms);
  EXPECT_EQ(c.max_in_flight, 1);
  EXPECT_EQ(c.user_agent, "go-nsq/1.1.0");
  EXPECT_TRUE(c.skip_lookupd_authorization);
  EXPECT_FALSE(c.hostname.empty());
  EXPECT_EQ(c.client_id, c.hostname.substr(0, c.hostname.find('.')));
}

TEST(ClientConfig, SetParsesEachKind) {
  Config c;
  ASSERT_TRUE(c.set("max_in_flight", "200"));
  EXPECT_EQ(c.max_in_flight, 200);
  ASSERT_TRUE(c.set("read_timeout", "90s"));
  EXPECT_EQ(c.read_timeout, 90s);
  ASSERT_TRUE(c.set("lookupd_poll_jitter", "0.5"));
  EXPECT_DOUBLE_EQ(c.lookupd_poll_jitter, 0.5);
  ASSERT_TRUE(c.set("snappy", "true"));
  EXPECT_TRUE(c.snappy);
  ASSERT_TRUE(c.set("auth_secret", "s3cret,with,commas"));
  EXPECT_EQ(c.auth_secret, "s3cret,with,commas");
  ASSERT_TRUE(c.set("backoff_strategy", "full_jitter"));
  EXPECT_EQ(c.backoff_strategy, BackoffStrategy::full_jitter);
  // Dashes are accepted for underscores, as go-nsq does.
  ASSERT_TRUE(c.set("max-attempts", "0"));
  EXPECT_EQ(c.max_attempts, 0);
}

TEST(ClientConfig, SetRejectsUnknownBadAndOutOfRange) {
  Config c;
  auto unknown = c.set("no_such_option", "1");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(), "invalid option no_such_option");
  auto low = c.set("max_in_flight", "-1");
  ASSERT_FALSE(low);
  EXPECT_EQ(low.error(), "invalid max_in_flight ! -1 < 0");
  auto high = c.set("read_timeout", "10m");
  ASSERT_FALSE(high);
  EXPECT_EQ(high.error(), "invalid read_timeout ! 10m0s > 5m0s");
  EXPECT_FALSE(c.set("deflate_level", "10"));
  EXPECT_FALSE(c.set("sample_rate", "100"));
  EXPECT_FALSE(c.set("lookupd_poll_jitter", "1.5"));
  EXPECT_FALSE(c.set("snappy", "yes please"));
  EXPECT_FALSE(c.set("dial_timeout", "5"));  // Go durations need a unit
  EXPECT_FALSE(c.set("backoff_strategy", "linear"));
  EXPECT_EQ(c.max_in_flight, 1) << "a failed set leaves the value alone";
}

TEST(ClientConfig, OptionFlagTakesNameCommaValueOrBareName) {
  Config c;
  ASSERT_TRUE(apply_option_flag(c, "max_in_flight,7"));
  EXPECT_EQ(c.max_in_flight, 7);
  ASSERT_TRUE(apply_option_flag(c, "deflate"));
  EXPECT_TRUE(c.deflate);
  EXPECT_FALSE(apply_option_flag(c, "max_in_flight"));  // bare name = "true": not an int
}

TEST(ClientConfig, ValidateChecksHeartbeatAgainstReadTimeout) {
  Config c;
  EXPECT_TRUE(c.validate());
  ASSERT_TRUE(c.set("heartbeat_interval", "2m"));
  EXPECT_FALSE(c.validate());
}

}  // namespace
}  // namespace nsq::client
