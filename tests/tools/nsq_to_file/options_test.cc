#include "options.h"

#include <gtest/gtest.h>

namespace nsq::to_file {
namespace {

tl::expected<void, flags::FlagError> parse(Options* o, std::vector<std::string> args,
                                           std::string* usage = nullptr) {
  flags::FlagSet fs("nsqd");
  add_flags(fs, o);
  auto r = fs.parse(args);
  if (usage) *usage = fs.usage();
  return r;
}

TEST(ToFileOptions, GoDefaults) {
  Options o;
  std::string usage;
  ASSERT_TRUE(parse(&o, {}, &usage));
  EXPECT_EQ(o.channel, "nsq_to_file");
  EXPECT_EQ(o.max_in_flight, 200);
  EXPECT_EQ(o.output_dir, "/tmp");
  EXPECT_EQ(o.filename_format, "<TOPIC>.<HOST><REV>.<DATETIME>.log");
  EXPECT_EQ(o.datetime_format, "%Y-%m-%d_%H");
  EXPECT_EQ(o.gzip_level, 6);
  EXPECT_EQ(o.topic_refresh, std::chrono::minutes(1));
  EXPECT_EQ(o.sync_interval, std::chrono::seconds(30));
  EXPECT_EQ(o.log_prefix, "[nsq_to_file] ");
  EXPECT_NE(usage.find("  -rotate-size rotate-size\n    \trotate the file when it grows bigger "
                       "than rotate-size bytes\n"),
            std::string::npos)
      << usage;
  EXPECT_NE(usage.find("  -topic-refresh duration\n    \thow frequently the topic list should "
                       "be refreshed (default 1m0s)\n"),
            std::string::npos);
  EXPECT_EQ(usage.rfind("Usage of nsqd:\n", 0), 0u);
}

TEST(ToFileOptions, RepeatableAndTypedFlags) {
  Options o;
  ASSERT_TRUE(parse(&o, {"--topic=a", "--topic", "b", "--rotate-size=0x10", "--gzip",
                         "--rotate-interval=1m", "--consumer-opt=max_attempts,7"}));
  EXPECT_EQ(o.topics, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.rotate_size, 16);
  EXPECT_TRUE(o.gzip);
  EXPECT_EQ(o.rotate_interval, std::chrono::minutes(1));
  EXPECT_EQ(o.consumer_config.max_attempts, 7);
  auto bad = parse(&o, {"--rotate-size=big"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "invalid value \"big\" for flag -rotate-size: parse error");
}

TEST(ToFileOptions, PreVersionChecks) {
  Options o;
  EXPECT_EQ(pre_version_error(o, {"x", "y"}), "unknown arguments: [x y]");
  o.log_level = "WARN";
  EXPECT_EQ(pre_version_error(o, {}), std::nullopt);
  o.log_level = "loud";
  EXPECT_EQ(pre_version_error(o, {}), "--log-level is invalid");
}

TEST(ToFileOptions, ChecksInGoOrder) {
  Options o;
  o.channel = "";
  EXPECT_EQ(validation_error(o), "--channel is required");
  o.channel = "c";
  o.http_connect_timeout = std::chrono::nanoseconds(0);
  EXPECT_EQ(validation_error(o), "--http-client-connect-timeout should be positive");
  o.http_connect_timeout = std::chrono::seconds(1);
  o.http_request_timeout = std::chrono::nanoseconds(0);
  EXPECT_EQ(validation_error(o), "--http-client-request-timeout should be positive");
  o.http_request_timeout = std::chrono::seconds(1);
  EXPECT_EQ(validation_error(o), "--nsqd-tcp-address or --lookupd-http-address required.");
  o.sources.nsqd_tcp = {"a:1"};
  o.sources.lookupd_http = {"b:1"};
  EXPECT_EQ(validation_error(o), "use --nsqd-tcp-address or --lookupd-http-address not both");
  o.sources.lookupd_http.clear();
  o.gzip_level = 10;
  EXPECT_EQ(validation_error(o), "invalid --gzip-level value (10), should be 1-9");
  o.gzip_level = 1;
  EXPECT_EQ(validation_error(o), "--topic or --topic-pattern required");
  o.topic_pattern = "x";
  EXPECT_EQ(validation_error(o),
            "--lookupd-http-address must be specified when no --topic specified");
  o.topics = {"t"};
  EXPECT_EQ(validation_error(o), std::nullopt);
  o.gzip = true;
  o.filename_format = "<TOPIC>.log";
  EXPECT_EQ(validation_error(o),
            "missing <REV> in --filename-format when gzip, rotation, or work dir enabled");
  o.gzip = false;
  o.work_dir = "/w";
  EXPECT_NE(validation_error(o), std::nullopt);
  o.work_dir = o.output_dir;
  EXPECT_EQ(validation_error(o), std::nullopt);
}

}  // namespace
}  // namespace nsq::to_file
