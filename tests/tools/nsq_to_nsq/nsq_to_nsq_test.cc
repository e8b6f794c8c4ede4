// nsq_to_nsq between two of our nsqd: 100k messages copied (counts via
// /stats, bodies by consuming the destination), JSON filtering end to end,
// round-robin over two destinations, --destination-topic, the flag checks.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"
#include "testutil/tool_process.h"

namespace nsq::testutil {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string bridge_binary() { return tool_binary_path("nsq_to_nsq"); }
std::string tail_binary() { return tool_binary_path("nsq_tail"); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

struct TopicFigures {
  long long message_count = -1;
  long long channel_depth = -1;  // of the asked channel, -1 if absent
  long long channel_in_flight = -1;
};

TopicFigures topic_figures(int http_port, const std::string& topic, const std::string& channel) {
  TopicFigures out;
  auto reply = http_once(http_port, "GET", "/stats?format=json&topic=" + topic);
  if (!reply || reply->status != 200) return out;
  rapidjson::Document doc;
  doc.Parse(reply->body.c_str());
  if (doc.HasParseError() || !doc.HasMember("topics") || !doc["topics"].IsArray()) return out;
  for (const auto& t : doc["topics"].GetArray()) {
    if (std::string(t["topic_name"].GetString()) != topic) continue;
    out.message_count = t["message_count"].GetInt64();
    for (const auto& c : t["channels"].GetArray()) {
      if (std::string(c["channel_name"].GetString()) != channel) continue;
      out.channel_depth = c["depth"].GetInt64();
      out.channel_in_flight = c["in_flight_count"].GetInt64();
    }
  }
  return out;
}

// Polls /stats until pred holds or the deadline passes.
template <class Pred>
bool wait_for_figures(int http_port, const std::string& topic, const std::string& channel,
                      Pred pred, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    if (pred(topic_figures(http_port, topic, channel))) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
}

struct Nsqd {
  TempDir dir;
  NsqdProcess process;
  std::string tcp() const { return "127.0.0.1:" + std::to_string(process.tcp_port()); }
  int http() const { return process.http_port(); }
};

std::unique_ptr<Nsqd> start_nsqd() {
  auto n = std::make_unique<Nsqd>();
  NsqdProcess::Options o;
  o.data_path = n->dir.path();
  o.require_http = true;
  std::string error = n->process.start(o);
  EXPECT_EQ(error, "");
  return error.empty() ? std::move(n) : nullptr;
}

void mpub(const Nsqd& nsqd, const std::string& topic, const std::vector<std::string>& bodies) {
  std::string joined;
  for (const auto& b : bodies) joined += b + "\n";
  auto reply = http_once(nsqd.http(), "POST", "/mpub?topic=" + topic, joined, {}, 30s);
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, 200) << reply->describe();
}

// The bodies of the first n messages of topic on nsqd (through nsq_tail).
std::vector<std::string> consume(const Nsqd& nsqd, const std::string& topic, int n) {
  auto r = run_tool(tail_binary(),
                    {"--topic=" + topic, "--channel=verify", "--nsqd-tcp-address=" + nsqd.tcp(),
                     "-n", std::to_string(n)},
                    {}, 120s);
  EXPECT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
  return lines_of(r.out);
}

class NsqToNsqTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (bridge_binary().empty() || tail_binary().empty()) GTEST_SKIP() << "tools not built";
    if (nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
    source_ = start_nsqd();
    destination_ = start_nsqd();
    ASSERT_TRUE(source_ && destination_);
  }

  std::unique_ptr<Nsqd> source_;
  std::unique_ptr<Nsqd> destination_;
};

TEST_F(NsqToNsqTest, Copies100kMessages) {
  constexpr int kTotal = 100000;
  std::vector<std::string> expected;
  expected.reserve(kTotal);
  char body[32];
  for (int i = 0; i < kTotal; ++i) {
    std::snprintf(body, sizeof body, "msg-%06d", i);
    expected.emplace_back(body);
  }
  for (int start = 0; start < kTotal; start += 5000) {
    mpub(*source_, "big", {expected.begin() + start, expected.begin() + start + 5000});
  }

  ToolProcess bridge;
  ASSERT_EQ(bridge.spawn(bridge_binary(), {"--topic=big", "--nsqd-tcp-address=" + source_->tcp(),
                                           "--destination-nsqd-tcp-address=" + destination_->tcp(),
                                           "--status-every=0"}),
            "");
  EXPECT_TRUE(wait_for_figures(
      destination_->http(), "big", "",
      [](const TopicFigures& f) { return f.message_count >= kTotal; }, 180s))
      << bridge.stderr_text().substr(0, 2000);
  // Every source message answered (FIN) once its copy was acknowledged.
  EXPECT_TRUE(wait_for_figures(
      source_->http(), "big", "nsq_to_nsq",
      [](const TopicFigures& f) { return f.channel_depth == 0 && f.channel_in_flight == 0; }, 60s));
  ASSERT_TRUE(bridge.send_signal(SIGTERM));
  EXPECT_EQ(bridge.wait_exit_code(40s), 0) << bridge.stderr_text().substr(0, 2000);
  EXPECT_EQ(topic_figures(destination_->http(), "big", "").message_count, kTotal);

  auto got = consume(*destination_, "big", kTotal);
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
}

TEST_F(NsqToNsqTest, JsonFiltersEndToEnd) {
  mpub(*source_, "events",
       {R"({"kind":"order","id":1,"secret":"s"})", R"({"kind":"refund","id":2})", "not json",
        R"({"kind":"order","id":3.0,"note":"a&b"})"});
  ToolProcess bridge;
  ASSERT_EQ(
      bridge.spawn(bridge_binary(), {"--topic=events", "--nsqd-tcp-address=" + source_->tcp(),
                                     "--destination-nsqd-tcp-address=" + destination_->tcp(),
                                     "--destination-topic=orders", "--require-json-field=kind",
                                     "--require-json-value=order", "--whitelist-json-field=id",
                                     "--whitelist-json-field=note"}),
      "");
  // Two pass; the refund and the undecodable one are dropped (FIN'd).
  EXPECT_TRUE(wait_for_figures(
      source_->http(), "events", "nsq_to_nsq",
      [](const TopicFigures& f) { return f.channel_depth == 0 && f.channel_in_flight == 0; }, 30s));
  EXPECT_TRUE(wait_for_figures(
      destination_->http(), "orders", "",
      [](const TopicFigures& f) { return f.message_count == 2; }, 30s));
  EXPECT_TRUE(bridge.wait_stderr("ERROR: Unable to decode json: not json", 5s))
      << bridge.stderr_text();
  bridge.send_signal(SIGTERM);
  EXPECT_EQ(bridge.wait_exit_code(40s), 0);
  EXPECT_EQ(consume(*destination_, "orders", 2),
            (std::vector<std::string>{R"({"id":1})", R"({"id":3,"note":"a\u0026b"})"}));
}

TEST_F(NsqToNsqTest, RoundRobinSpreadsOverDestinations) {
  auto third = start_nsqd();
  ASSERT_TRUE(third);
  std::vector<std::string> bodies;
  for (int i = 0; i < 10; ++i) bodies.push_back("rr" + std::to_string(i));
  mpub(*source_, "rr", bodies);
  ToolProcess bridge;
  ASSERT_EQ(bridge.spawn(bridge_binary(), {"--topic=rr", "--nsqd-tcp-address=" + source_->tcp(),
                                           "--destination-nsqd-tcp-address=" + destination_->tcp(),
                                           "--destination-nsqd-tcp-address=" + third->tcp(),
                                           "--mode=round-robin", "--status-every=5"}),
            "");
  EXPECT_TRUE(wait_for_figures(
      source_->http(), "rr", "nsq_to_nsq",
      [](const TopicFigures& f) { return f.channel_depth == 0 && f.channel_in_flight == 0; }, 30s));
  bridge.send_signal(SIGTERM);
  EXPECT_EQ(bridge.wait_exit_code(40s), 0);
  EXPECT_EQ(topic_figures(destination_->http(), "rr", "").message_count, 5);
  EXPECT_EQ(topic_figures(third->http(), "rr", "").message_count, 5);
  // --status-every: per destination and aggregate timing lines.
  std::string log = bridge.stderr_text();
  EXPECT_NE(log.find(" [aggregate]: finished 5 - 99th: "), std::string::npos) << log;
  EXPECT_NE(log.find(" [" + third->tcp() + "]: finished 5 - 99th: "), std::string::npos) << log;
}

TEST(NsqToNsqFlagsTest, GoChecksAndExitCodes) {
  if (bridge_binary().empty()) GTEST_SKIP() << "nsq_to_nsq not built";
  auto version = run_tool(bridge_binary(), {"--version"});
  EXPECT_EQ(version.exit_code, 0);
  // Go's line and the commit the build was made from.
  EXPECT_TRUE(std::regex_match(version.out, std::regex(R"(nsq_to_nsq v1\.3\.0 \(commit \w+\)\n)")))
      << version.out;

  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "--topic and --channel are required"},
      {{"--topic=t", "--channel="}, "--topic and --channel are required"},
      {{"--topic=bad!"}, "--topic is invalid"},
      {{"--topic=t", "--destination-topic=bad!"}, "--destination-topic is invalid"},
      {{"--topic=t", "--channel=bad!"}, "--channel is invalid"},
      {{"--topic=t"}, "--nsqd-tcp-address or --lookupd-http-address required"},
      {{"--topic=t", "--nsqd-tcp-address=a:1", "--lookupd-http-address=b:2"},
       "use --nsqd-tcp-address or --lookupd-http-address not both"},
      {{"--topic=t", "--nsqd-tcp-address=a:1"}, "--destination-nsqd-tcp-address required"},
  };
  for (const auto& c : cases) {
    auto r = run_tool(bridge_binary(), c.args);
    EXPECT_EQ(r.exit_code, 1) << c.message;
    EXPECT_NE(r.err.find(" " + c.message + "\n"), std::string::npos) << r.err;
  }

  auto bad = run_tool(bridge_binary(), {"--producer-opt=max_in_flight,-1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("invalid value \"max_in_flight,-1\" for flag -producer-opt: ", 0), 0u)
      << bad.err;
}

}  // namespace
}  // namespace nsq::testutil
