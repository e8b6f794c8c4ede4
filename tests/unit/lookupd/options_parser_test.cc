#include "lookupd/options_parser.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "nsq/config/daemon_options.h"

namespace nsq::lookupd {
namespace {

using namespace std::chrono_literals;

const ParseEnv kEnv{"myhost", "gcc test"};

ParseOutcome parse(std::vector<std::string> args) { return parse_lookupd_options(args, kEnv); }

// A TOML file in the temp dir, removed at scope exit.
struct ConfigFile {
  explicit ConfigFile(const std::string& text) {
    path = (std::filesystem::temp_directory_path() / ("lookupd_cfg_" + std::to_string(::getpid()) +
                                                      "_" + std::to_string(counter++) + ".toml"))
               .string();
    std::ofstream(path) << text;
  }
  ~ConfigFile() { std::remove(path.c_str()); }
  std::string path;
  static inline int counter = 0;
};

TEST(LookupdOptions, Defaults) {
  auto o = parse({});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->tcp_address, "0.0.0.0:4160");
  EXPECT_EQ(o->http_address, "0.0.0.0:4161");
  EXPECT_EQ(o->broadcast_address, "myhost");
  EXPECT_EQ(o->inactive_producer_timeout, 5min);
  EXPECT_EQ(o->tombstone_lifetime, 45s);
  EXPECT_EQ(o->log_prefix, "[nsqlookupd] ");
  EXPECT_EQ(o->log_level, LogLevel::info);
}

TEST(LookupdOptions, FlagsInGoSyntax) {
  auto o =
      parse({"-tcp-address", "127.0.0.1:1", "--http-address=127.0.0.1:2", "--broadcast-address=b",
             "-inactive-producer-timeout=1m30s", "--tombstone-lifetime", "250ms",
             "--log-level=DEBUG", "--verbose", "--log-prefix="});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->tcp_address, "127.0.0.1:1");
  EXPECT_EQ(o->http_address, "127.0.0.1:2");
  EXPECT_EQ(o->broadcast_address, "b");
  EXPECT_EQ(o->inactive_producer_timeout, 90s);
  EXPECT_EQ(o->tombstone_lifetime, 250ms);
  EXPECT_EQ(o->log_level, LogLevel::debug);
  EXPECT_EQ(o->log_prefix, "");
}

TEST(LookupdOptions, VersionHelpAndErrors) {
  auto o = parse({"--version"});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 0);
  EXPECT_EQ(o.error().text, "nsqlookupd v1.3.0 (built w/gcc test, commit " +
                                std::string(config::build_commit()) + ")\n");
  o = parse({"-h"});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 0);
  EXPECT_NE(o.error().text.find("Usage of nsqlookupd:"), std::string::npos);
  EXPECT_NE(o.error().text.find("-tombstone-lifetime"), std::string::npos);
  o = parse({"--node-id=1"});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 2);
  o = parse({"--tombstone-lifetime=soon"});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 2);
  o = parse({"--log-level=loud"});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 2);
}

TEST(LookupdOptions, ConfigFileCoercionAndPrecedence) {
  ConfigFile cfg(
      "tcp_address = \"127.0.0.1:7\"\n"
      "http_address = \"127.0.0.1:8\"\n"
      "inactive_producer_timeout = 1500\n"  // integer = milliseconds
      "tombstone_lifetime = \"2s\"\n"
      "log_level = \"warn\"\n"
      "unknown_key = 1\n");
  auto o = parse({"--config", cfg.path, "--http-address=127.0.0.1:9"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->tcp_address, "127.0.0.1:7");
  EXPECT_EQ(o->http_address, "127.0.0.1:9");  // flag wins
  EXPECT_EQ(o->inactive_producer_timeout, 1500ms);
  EXPECT_EQ(o->tombstone_lifetime, 2s);
  EXPECT_EQ(o->log_level, LogLevel::warn);
}

TEST(LookupdOptions, BadConfigIsFatal) {
  ConfigFile bad_value("tombstone_lifetime = \"forever\"\n");
  auto o = parse({"--config=" + bad_value.path});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 1);
  EXPECT_NE(o.error().text.find("tombstone_lifetime"), std::string::npos);
  ConfigFile not_toml("this is not toml\n");
  o = parse({"--config=" + not_toml.path});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 1);
  EXPECT_NE(o.error().text.find("failed to load config file"), std::string::npos);
  o = parse({"--config=/nonexistent/x.toml"});
  ASSERT_FALSE(o);
  EXPECT_EQ(o.error().exit_code, 1);
}

}  // namespace
}  // namespace nsq::lookupd
