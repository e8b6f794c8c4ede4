#include "options.h"

#include <gtest/gtest.h>

namespace nsq::stat {
namespace {

tl::expected<void, flags::FlagError> parse(Options* o, std::vector<std::string> args) {
  flags::FlagSet fs("nsq_stat");
  add_flags(fs, o);
  return fs.parse(args);
}

TEST(StatOptions, Defaults) {
  Options o;
  ASSERT_TRUE(parse(&o, {}));
  EXPECT_EQ(o.interval, std::chrono::seconds(2));
  EXPECT_FALSE(o.count.has_value());
  EXPECT_EQ(o.http_connect_timeout, std::chrono::seconds(2));
  EXPECT_EQ(o.http_request_timeout, std::chrono::seconds(5));
  EXPECT_EQ(validation_error(o), "--topic and --channel are required");
}

TEST(StatOptions, CountIsParsedAsInt32) {
  Options o;
  ASSERT_TRUE(parse(&o, {"--count=3"}));
  EXPECT_EQ(o.count, 3);
  auto bad = parse(&o, {"--count", "x"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "invalid value \"x\" for flag -count: strconv.ParseInt: parsing \"x\": invalid syntax");
  auto big = parse(&o, {"--count", "3000000000"});
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message,
            "invalid value \"3000000000\" for flag -count: strconv.ParseInt: parsing "
            "\"3000000000\": value out of range");
}

TEST(StatOptions, ChecksInGoOrder) {
  Options o;
  o.topic = "t";
  o.channel = "c";
  o.interval = std::chrono::nanoseconds(0);
  EXPECT_EQ(validation_error(o), "--interval should be positive");
  o.interval = std::chrono::seconds(1);
  o.http_connect_timeout = std::chrono::nanoseconds(-1);
  EXPECT_EQ(validation_error(o), "--http-client-connect-timeout should be positive");
  o.http_connect_timeout = std::chrono::seconds(1);
  o.http_request_timeout = std::chrono::nanoseconds(0);
  EXPECT_EQ(validation_error(o), "--http-client-request-timeout should be positive");
  o.http_request_timeout = std::chrono::seconds(1);
  o.count = 0;
  EXPECT_EQ(validation_error(o), "--count should be positive");
  o.count.reset();
  EXPECT_EQ(validation_error(o), "--nsqd-http-address or --lookupd-http-address required");
  o.nsqd_http_addresses = {"a:1"};
  o.lookupd_http_addresses = {"b:1"};
  EXPECT_EQ(validation_error(o), "use --nsqd-http-address or --lookupd-http-address not both");
  o.lookupd_http_addresses.clear();
  o.nsqd_http_addresses = {"http://a:1"};
  EXPECT_EQ(validation_error(o), "--nsqd-http-address error - address should not contain scheme");
  o.nsqd_http_addresses.clear();
  o.lookupd_http_addresses = {"https://a:1"};
  EXPECT_EQ(validation_error(o),
            "--lookupd-http-address error - address should not contain scheme");
  o.lookupd_http_addresses = {"a:1"};
  EXPECT_EQ(validation_error(o), std::nullopt);
}

}  // namespace
}  // namespace nsq::stat
