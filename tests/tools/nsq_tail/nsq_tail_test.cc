// nsq_tail against our nsqd: -n, --print-topic, the user agent, signals,
// and the Go tool's flag errors and exit codes.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <csignal>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"
#include "testutil/tool_process.h"

namespace nsq::testutil {
namespace {

using namespace std::chrono_literals;

std::string tail_binary() { return tool_binary_path("nsq_tail"); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

class NsqTailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (tail_binary().empty()) GTEST_SKIP() << "nsq_tail not built";
    if (nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
    NsqdProcess::Options o;
    o.data_path = dir_.path();
    o.require_http = true;
    ASSERT_EQ(nsqd_.start(o), "");
  }

  std::string nsqd_tcp() const { return "127.0.0.1:" + std::to_string(nsqd_.tcp_port()); }

  void publish(const std::string& topic, const std::vector<std::string>& bodies) {
    std::string joined;
    for (const auto& b : bodies) joined += b + "\n";
    auto reply = http_once(nsqd_.http_port(), "POST", "/mpub?topic=" + topic, joined);
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->status, 200) << reply->describe();
  }

  // `field` of every client of topic/channel in nsqd's /stats.
  std::vector<std::string> client_fields(const std::string& topic, const std::string& channel,
                                         const char* field) {
    std::vector<std::string> out;
    auto reply = http_once(nsqd_.http_port(), "GET", "/stats?format=json&topic=" + topic);
    if (!reply || reply->status != 200) return out;
    rapidjson::Document doc;
    doc.Parse(reply->body.c_str());
    if (doc.HasParseError() || !doc.HasMember("topics") || !doc["topics"].IsArray()) return out;
    for (const auto& t : doc["topics"].GetArray()) {
      for (const auto& c : t["channels"].GetArray()) {
        if (std::string(c["channel_name"].GetString()) != channel) continue;
        for (const auto& client : c["clients"].GetArray()) {
          out.emplace_back(client[field].GetString());
        }
      }
    }
    return out;
  }

  TempDir dir_;
  NsqdProcess nsqd_;
};

TEST_F(NsqTailTest, PrintsExactlyNBodiesThenExitsZero) {
  std::vector<std::string> bodies;
  for (int i = 0; i < 25; ++i) bodies.push_back("message-" + std::to_string(i));
  publish("tail_n", bodies);

  auto r = run_tool(tail_binary(), {"--topic=tail_n", "--channel=c",
                                    "--nsqd-tcp-address=" + nsqd_tcp(), "-n", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 10u) << r.out;
  // One connection, an in-memory queue: nsqd delivers in publish order.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(lines[i], bodies[i]);
  EXPECT_NE(r.err.find("Adding consumer for topic: tail_n"), std::string::npos) << r.err;
}

TEST_F(NsqTailTest, PrintTopicPrefixesEveryLineAcrossTopics) {
  publish("tail_a", {"a1", "a2"});
  publish("tail_b", {"b1"});
  ToolProcess tail;
  ASSERT_EQ(tail.spawn(tail_binary(), {"--topic=tail_a", "--topic=tail_b", "--print-topic",
                                       "--channel=c", "--nsqd-tcp-address=" + nsqd_tcp()}),
            "");
  ASSERT_TRUE(tail.wait_stdout_lines(3, 15s)) << tail.stdout_text() << tail.stderr_text();
  auto lines = lines_of(tail.stdout_text());
  std::multiset<std::string> got(lines.begin(), lines.end());
  EXPECT_EQ(got, (std::multiset<std::string>{"tail_a | a1", "tail_a | a2", "tail_b | b1"}));

  // Still running after the messages: SIGTERM stops it cleanly.
  ASSERT_TRUE(tail.send_signal(SIGTERM));
  EXPECT_EQ(tail.wait_exit_code(35s), 0) << tail.stderr_text();
}

TEST_F(NsqTailTest, IdentifiesWithItsUserAgentOnARandomEphemeralChannel) {
  publish("tail_ua", {"x"});
  ToolProcess tail;
  ASSERT_EQ(tail.spawn(tail_binary(), {"--topic=tail_ua", "--nsqd-tcp-address=" + nsqd_tcp()}), "");
  ASSERT_TRUE(tail.wait_stdout_lines(1, 15s)) << tail.stderr_text();

  auto reply = http_once(nsqd_.http_port(), "GET", "/stats?format=json&topic=tail_ua");
  ASSERT_TRUE(reply);
  rapidjson::Document doc;
  doc.Parse(reply->body.c_str());
  ASSERT_FALSE(doc.HasParseError());
  std::string channel;
  for (const auto& t : doc["topics"].GetArray()) {
    for (const auto& c : t["channels"].GetArray()) channel = c["channel_name"].GetString();
  }
  // tail<6 digits>#ephemeral
  ASSERT_EQ(channel.size(), std::string("tail000000#ephemeral").size()) << channel;
  EXPECT_EQ(channel.rfind("tail", 0), 0u);
  EXPECT_EQ(channel.substr(10), "#ephemeral");
  for (char c : channel.substr(4, 6)) EXPECT_TRUE(c >= '0' && c <= '9') << channel;
  EXPECT_EQ(client_fields("tail_ua", channel, "user_agent"),
            std::vector<std::string>{"nsq_tail/1.3.0 go-nsq/1.1.0"});

  ASSERT_TRUE(tail.send_signal(SIGINT));
  EXPECT_EQ(tail.wait_exit_code(35s), 0);
}

TEST_F(NsqTailTest, ConsumerOptReachesTheConnectionButNotTheUserAgent) {
  publish("tail_opt", {"x"});
  ToolProcess tail;
  ASSERT_EQ(
      tail.spawn(tail_binary(),
                 {"--topic=tail_opt", "--channel=c", "--nsqd-tcp-address=" + nsqd_tcp(),
                  "--consumer-opt=client_id,tail-test", "--consumer-opt=user_agent,custom/1"}),
      "");
  ASSERT_TRUE(tail.wait_stdout_lines(1, 15s)) << tail.stderr_text();
  EXPECT_EQ(client_fields("tail_opt", "c", "client_id"), std::vector<std::string>{"tail-test"});
  // The tool sets its own user agent after the options, as the Go tool does.
  EXPECT_EQ(client_fields("tail_opt", "c", "user_agent"),
            std::vector<std::string>{"nsq_tail/1.3.0 go-nsq/1.1.0"});
}

// ---- command line, no broker needed ----

class NsqTailFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (tail_binary().empty()) GTEST_SKIP() << "nsq_tail not built";
  }
};

TEST_F(NsqTailFlagsTest, Version) {
  auto r = run_tool(tail_binary(), {"--version"});
  EXPECT_EQ(r.exit_code, 0);
  // Go's line and the commit the build was made from.
  EXPECT_TRUE(std::regex_match(r.out, std::regex(R"(nsq_tail v1\.3\.0 \(commit \w+\)\n)")))
      << r.out;
}

TEST_F(NsqTailFlagsTest, UnknownFlagIsExitTwoWithUsage) {
  auto r = run_tool(tail_binary(), {"--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("flag provided but not defined: -bogus\nUsage of ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("  -max-in-flight int\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(default 200)"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(NsqTailFlagsTest, BadValuesAreExitTwo) {
  auto r = run_tool(tail_binary(), {"-n", "many"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("invalid value \"many\" for flag -n: parse error\n", 0), 0u) << r.err;

  auto opt = run_tool(tail_binary(), {"--consumer-opt=no_such_option,1"});
  EXPECT_EQ(opt.exit_code, 2);
  EXPECT_EQ(opt.err.rfind("invalid value \"no_such_option,1\" for flag -consumer-opt: ", 0), 0u)
      << opt.err;
}

TEST_F(NsqTailFlagsTest, HelpIsExitZero) {
  auto r = run_tool(tail_binary(), {"-h"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.rfind("Usage of ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("  -print-topic\n"), std::string::npos) << r.err;
}

TEST_F(NsqTailFlagsTest, SourceAndTopicChecksAreFatal) {
  auto none = run_tool(tail_binary(), {"--topic=t"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find(" --nsqd-tcp-address or --lookupd-http-address required\n"),
            std::string::npos)
      << none.err;

  auto both = run_tool(tail_binary(), {"--topic=t", "--nsqd-tcp-address=127.0.0.1:1",
                                       "--lookupd-http-address=127.0.0.1:2"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.err.find(" use --nsqd-tcp-address or --lookupd-http-address not both\n"),
            std::string::npos)
      << both.err;

  auto no_topic = run_tool(tail_binary(), {"--nsqd-tcp-address=127.0.0.1:1"});
  EXPECT_EQ(no_topic.exit_code, 1);
  EXPECT_NE(no_topic.err.find(" --topic required\n"), std::string::npos) << no_topic.err;
}

}  // namespace
}  // namespace nsq::testutil
