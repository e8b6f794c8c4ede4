#include "protocol/auth.h"

#include <gtest/gtest.h>

namespace nsq::nsqd::auth {
namespace {

using Clock = std::chrono::steady_clock;

State parse_ok(std::string_view json, Clock::time_point now = Clock::time_point()) {
  auto s = parse_reply(json, now);
  EXPECT_TRUE(s) << s.error();
  return s ? std::move(*s) : State{};
}

TEST(AuthReply, FieldsAndExpiry) {
  Clock::time_point now{std::chrono::seconds(100)};
  State s = parse_ok(R"({"ttl":30,"identity":"alice","identity_url":"http://x/a",
      "authorizations":[{"topic":"t","channels":["c"],"permissions":["publish","subscribe"]}]})",
                     now);
  EXPECT_EQ(s.identity, "alice");
  EXPECT_EQ(s.identity_url, "http://x/a");
  ASSERT_EQ(s.authorizations.size(), 1u);
  EXPECT_TRUE(s.authorizations[0].publish);
  EXPECT_TRUE(s.authorizations[0].subscribe);
  EXPECT_FALSE(s.expired(now + std::chrono::seconds(29)));
  EXPECT_TRUE(s.expired(now + std::chrono::seconds(30)));
}

TEST(AuthReply, Rejections) {
  Clock::time_point now;
  EXPECT_FALSE(parse_reply("not json", now));
  EXPECT_FALSE(parse_reply(R"([1])", now));
  EXPECT_EQ(parse_reply(R"({"ttl":0,"authorizations":[]})", now).error(),
            "invalid TTL 0 (must be >0)");
  EXPECT_FALSE(parse_reply(R"({"authorizations":[]})", now));  // ttl missing = 0
  EXPECT_EQ(
      parse_reply(
          R"({"ttl":5,"authorizations":[{"topic":".*","channels":[],"permissions":["admin"]}]})",
          now)
          .error(),
      "unknown permission admin");
  auto bad_topic = parse_reply(
      R"({"ttl":5,"authorizations":[{"topic":"(","channels":[],"permissions":[]}]})", now);
  ASSERT_FALSE(bad_topic);
  EXPECT_EQ(bad_topic.error().rfind("unable to compile topic \"(\"", 0), 0u) << bad_topic.error();
  auto bad_channel = parse_reply(
      R"({"ttl":5,"authorizations":[{"topic":"x","channels":["[a"],"permissions":[]}]})", now);
  ASSERT_FALSE(bad_channel);
  EXPECT_EQ(bad_channel.error().rfind("unable to compile channel \"[a\"", 0), 0u);
  EXPECT_FALSE(parse_reply(R"({"ttl":"5"})", now));
}

TEST(AuthReply, EmptyAuthorizationsAreValid) {
  State s = parse_ok(R"({"ttl":5,"identity":"n"})");
  EXPECT_TRUE(s.authorizations.empty());
  EXPECT_FALSE(s.allows("t", ""));
}

TEST(AuthAllows, PermissionFollowsTheChannel) {
  State s = parse_ok(R"({"ttl":5,"authorizations":[
      {"topic":"^pub$","channels":[".*"],"permissions":["publish"]},
      {"topic":"^sub$","channels":["^ch$"],"permissions":["subscribe"]},
      {"topic":"^none$","channels":[],"permissions":["publish","subscribe"]}]})");
  EXPECT_TRUE(s.allows("pub", ""));     // publish: channel ""
  EXPECT_FALSE(s.allows("pub", "ch"));  // subscribe not granted
  EXPECT_TRUE(s.allows("sub", "ch"));
  EXPECT_FALSE(s.allows("sub", ""));  // publish not granted
  EXPECT_FALSE(s.allows("sub", "other"));
  EXPECT_FALSE(s.allows("none", ""));  // no channel pattern, nothing allowed
}

TEST(AuthAllows, UnanchoredSearchLikeGo) {
  State s = parse_ok(R"({"ttl":5,"authorizations":[
      {"topic":"orders","channels":["arch"],"permissions":["subscribe","publish"]}]})");
  EXPECT_TRUE(s.allows("eu-orders-v2", "archive"));
  EXPECT_FALSE(s.allows("order", "archive"));
  // A publish needs a channel pattern matching "": "arch" does not.
  EXPECT_FALSE(s.allows("orders", ""));
}

TEST(AuthQuery, SortedAndEscapedLikeGoUrlValues) {
  EXPECT_EQ(query_string("s3cr3t", "127.0.0.1", false, ""),
            "common_name=&remote_ip=127.0.0.1&secret=s3cr3t&tls=false");
  EXPECT_EQ(query_string("a b&c=d/é~", "::1", true, "CN x"),
            "common_name=CN+x&remote_ip=%3A%3A1&secret=a+b%26c%3Dd%2F%C3%A9~&tls=true");
}

TEST(AuthAddress, HostPortOrUrl) {
  auto a = parse_address("127.0.0.1:4181");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 4181);
  EXPECT_EQ(a->path, "/auth");
  auto u = parse_address("http://auth.local:8080/v1/check");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "auth.local");
  EXPECT_EQ(u->port, 8080);
  EXPECT_EQ(u->path, "/v1/check");
  auto v6 = parse_address("[::1]:99");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  auto https = parse_address("https://secure/auth");
  ASSERT_TRUE(https);
  EXPECT_TRUE(https->https);
  EXPECT_EQ(https->port, 443);
  EXPECT_FALSE(u->https);
  auto https_port = parse_address("https://[::1]:8443/x");
  ASSERT_TRUE(https_port);
  EXPECT_EQ(https_port->host, "::1");
  EXPECT_EQ(https_port->port, 8443);
  EXPECT_FALSE(parse_address("ftp://secure:443/auth"));
  EXPECT_FALSE(parse_address("host:notaport"));
  EXPECT_FALSE(parse_address(":80"));
}

}  // namespace
}  // namespace nsq::nsqd::auth

namespace nsq::nsqd::auth {
namespace {

std::string topic_error(const std::string& pattern) {
  std::string json = R"({"ttl":5,"authorizations":[{"topic":")" + pattern +
                     R"(","channels":[".*"],"permissions":["publish"]}]})";
  auto r = parse_reply(json, std::chrono::steady_clock::time_point());
  return r ? std::string() : r.error();
}

// std::regex backtracks: patterns that would take exponential time are
// refused up front (a fuzzer found `z*****...` stalling the matcher).
TEST(AuthReply, RefusesPatternsThatBacktrackExponentially) {
  EXPECT_NE(topic_error("z**").find("invalid nested repetition operator"), std::string::npos);
  EXPECT_NE(topic_error("z******************").find("nested repetition"), std::string::npos);
  EXPECT_NE(topic_error("a+*").find("nested repetition"), std::string::npos);
  EXPECT_NE(topic_error("(a*)*").find("nested repetition in a group"), std::string::npos);
  EXPECT_NE(topic_error("(a|aa)+b").find("nested repetition in a group"), std::string::npos);
  EXPECT_NE(topic_error("a{1001}").find("invalid repeat count"), std::string::npos);
  EXPECT_NE(topic_error(".*.*.*.*.*x").find("too many repetitions"), std::string::npos);
  EXPECT_NE(topic_error(std::string(1001, 'a')).find("too long"), std::string::npos);
}

TEST(AuthReply, AcceptsTheUsualPatterns) {
  for (const char* ok : {".*", "^orders$", "^(orders|events)$", "^logs_[a-z]+_[0-9]*$", "a*?b",
                         "^[*+?]+$", "\\\\d{2,4}", "x{3}", "(ab)+", "^metrics\\\\..*"}) {
    EXPECT_EQ(topic_error(ok), "") << ok;
  }
}

}  // namespace
}  // namespace nsq::nsqd::auth

namespace nsq::nsqd::auth {
namespace {

TEST(AuthReply, HugeTtlIsCappedNotOverflowed) {
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};
  auto s = parse_reply(R"({"ttl":1333333333333333,"authorizations":[]})", now);
  ASSERT_TRUE(s) << s.error();
  EXPECT_FALSE(s->expired(now + std::chrono::hours(24 * 300)));
}

}  // namespace
}  // namespace nsq::nsqd::auth
