// nsqadmin's flags: Go's names, defaults and New() checks.
#include "options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "testutil/temp_dir.h"

namespace nsq::admin {
namespace {

tl::expected<void, flags::FlagError> parse(Options* o, std::vector<std::string> args) {
  flags::FlagSet fs("nsqadmin");
  add_flags(fs, o);
  return fs.parse(args);
}

TEST(NsqadminOptions, GoDefaults) {
  Options o;
  ASSERT_TRUE(parse(&o, {}));
  EXPECT_EQ(o.http_address, "0.0.0.0:4171");
  EXPECT_EQ(o.base_path, "/");
  EXPECT_EQ(o.acl_http_header, "X-Forwarded-User");
  EXPECT_EQ(o.log_prefix, "[nsqadmin] ");
  EXPECT_EQ(o.statsd_prefix, "nsq.%s");
  EXPECT_EQ(o.statsd_counter_format, "stats.counters.%s.count");
  EXPECT_EQ(o.statsd_gauge_format, "stats.gauges.%s");
  EXPECT_EQ(o.statsd_interval, std::chrono::seconds(60));
  EXPECT_EQ(o.http_client_connect_timeout, std::chrono::seconds(2));
  EXPECT_EQ(o.http_client_request_timeout, std::chrono::seconds(5));
  EXPECT_TRUE(o.admin_users.empty());
  EXPECT_TRUE(o.graphite_url.empty());
  EXPECT_TRUE(o.notification_http_endpoint.empty());
}

TEST(NsqadminOptions, RepeatableAndGoStyleFlags) {
  Options o;
  ASSERT_TRUE(parse(&o, {"-lookupd-http-address", "127.0.0.1:4161", "--lookupd-http-address=h:4161",
                         "--admin-user=alice", "--admin-user", "bob", "--base-path=/admin/",
                         "--graphite-url=http://graphite:8080", "--acl-http-header=X-User",
                         "--notification-http-endpoint=http://hook:80/x", "--log-level=debug",
                         "--http-client-connect-timeout=1s"}));
  EXPECT_EQ(o.lookupd_http_addresses, (std::vector<std::string>{"127.0.0.1:4161", "h:4161"}));
  EXPECT_EQ(o.admin_users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(o.base_path, "/admin/");
  EXPECT_EQ(o.graphite_url, "http://graphite:8080");
  EXPECT_EQ(o.acl_http_header, "X-User");
  EXPECT_EQ(o.notification_http_endpoint, "http://hook:80/x");
  EXPECT_EQ(o.log_level, GoLogLevel::debug);
  EXPECT_EQ(o.http_client_connect_timeout, std::chrono::seconds(1));
  EXPECT_EQ(validation_error(o), std::nullopt);
}

TEST(NsqadminOptions, BadLogLevelIsAFlagError) {
  Options o;
  auto r = parse(&o, {"--log-level=loud"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("invalid log level 'loud'"), std::string::npos)
      << r.error().message;
}

TEST(NsqadminOptions, GoValidationTexts) {
  Options none;
  EXPECT_EQ(validation_error(none), "--nsqd-http-address or --lookupd-http-address required");

  Options both;
  both.lookupd_http_addresses = {"127.0.0.1:4161"};
  both.nsqd_http_addresses = {"127.0.0.1:4151"};
  EXPECT_EQ(validation_error(both), "use --nsqd-http-address or --lookupd-http-address not both");

  Options no_port;
  no_port.lookupd_http_addresses = {"127.0.0.1"};
  EXPECT_EQ(validation_error(no_port),
            "failed to resolve --lookupd-http-address (127.0.0.1) - address 127.0.0.1: missing "
            "port in address");

  Options nsqd_only;
  nsqd_only.nsqd_http_addresses = {"127.0.0.1:4151"};
  EXPECT_EQ(validation_error(nsqd_only), std::nullopt);
}

// --config: Go's keys (with the cfg tags of the repeatable flags); a flag
// given on the command line wins over the file.
TEST(NsqadminOptions, ConfigFileKeysAndFlagPrecedence) {
  testutil::TempDir dir;
  const std::string path = (dir.path() / "nsqadmin.cfg").string();
  std::ofstream(path) << "http_address = \"127.0.0.1:4999\"\n"
                         "nsqlookupd_http_addresses = [\"10.0.0.1:4161\", \"10.0.0.2:4161\"]\n"
                         "admin_users = [\"ops\"]\n"
                         "base_path = \"/from-file\"\n"
                         "http_client_request_timeout = \"9s\"\n";
  Options parsed;
  flags::FlagSet fs("nsqadmin");
  add_flags(fs, &parsed);
  ASSERT_TRUE(fs.parse(std::vector<std::string>{"--config", path, "--base-path=/flag"}));
  auto o = resolve_config(fs, parsed);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->http_address, "127.0.0.1:4999");
  EXPECT_EQ(o->lookupd_http_addresses,
            (std::vector<std::string>{"10.0.0.1:4161", "10.0.0.2:4161"}));
  EXPECT_EQ(o->admin_users, (std::vector<std::string>{"ops"}));
  EXPECT_EQ(o->base_path, "/flag");
  EXPECT_EQ(o->http_client_request_timeout, std::chrono::seconds(9));
  EXPECT_EQ(o->acl_http_header, "X-Forwarded-User") << "default kept";

  Options missing;
  missing.config = (dir.path() / "nope.cfg").string();
  flags::FlagSet fs2("nsqadmin");
  auto err = resolve_config(fs2, missing);
  ASSERT_FALSE(err);
  EXPECT_EQ(err.error().rfind("failed to load config file " + missing.config + " - ", 0), 0u)
      << err.error();
}

TEST(NsqadminOptions, BasePathNormalized) {
  EXPECT_EQ(normalize_base_path(""), "/");
  EXPECT_EQ(normalize_base_path("/"), "/");
  EXPECT_EQ(normalize_base_path("admin"), "/admin");
  EXPECT_EQ(normalize_base_path("/admin/"), "/admin");
  EXPECT_EQ(normalize_base_path("//a//b/"), "/a/b");
}

}  // namespace
}  // namespace nsq::admin
