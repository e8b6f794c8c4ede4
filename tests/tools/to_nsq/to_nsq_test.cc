// to_nsq against our nsqd: to_nsq | nsq_tail round trips (direct and
// through nsqlookupd), fan-out to every address, the delimiter rules and
// v1.3.0's last-byte quirk, --rate, fatal errors, signals.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <csignal>
#include <memory>
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

std::string to_nsq_binary() { return tool_binary_path("to_nsq"); }
std::string tail_binary() { return tool_binary_path("nsq_tail"); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

// A topic's message_count in nsqd's /stats (-1 if the topic is absent).
long long topic_message_count(int http_port, const std::string& topic) {
  auto reply = http_once(http_port, "GET", "/stats?format=json&topic=" + topic);
  if (!reply || reply->status != 200) return -1;
  rapidjson::Document doc;
  doc.Parse(reply->body.c_str());
  if (doc.HasParseError() || !doc.HasMember("topics") || !doc["topics"].IsArray()) return -1;
  for (const auto& t : doc["topics"].GetArray()) {
    if (std::string(t["topic_name"].GetString()) == topic) return t["message_count"].GetInt64();
  }
  return -1;
}

struct Nsqd {
  TempDir dir;
  NsqdProcess process;
  std::string tcp() const { return "127.0.0.1:" + std::to_string(process.tcp_port()); }
};

std::unique_ptr<Nsqd> start_nsqd(std::vector<std::string> extra_args = {}) {
  auto n = std::make_unique<Nsqd>();
  NsqdProcess::Options o;
  o.data_path = n->dir.path();
  o.require_http = true;
  o.extra_args = std::move(extra_args);
  std::string error = n->process.start(o);
  EXPECT_EQ(error, "");
  return error.empty() ? std::move(n) : nullptr;
}

class ToNsqTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (to_nsq_binary().empty() || tail_binary().empty()) GTEST_SKIP() << "tools not built";
    if (nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
  }
};

TEST_F(ToNsqTest, PipedIntoNsqTailWithNsqdAddress) {
  auto nsqd = start_nsqd();
  ASSERT_TRUE(nsqd);
  std::string input;
  std::vector<std::string> expected;
  for (int i = 0; i < 200; ++i) {
    expected.push_back("line " + std::to_string(i) + " with spaces\tand tabs");
    input += expected.back() + "\n";
  }
  auto pub = run_tool(to_nsq_binary(), {"--topic=rt", "--nsqd-tcp-address=" + nsqd->tcp()}, input);
  ASSERT_EQ(pub.exit_code, 0) << pub.err;
  EXPECT_EQ(topic_message_count(nsqd->process.http_port(), "rt"), 200);

  auto tail = run_tool(tail_binary(), {"--topic=rt", "--channel=c",
                                       "--nsqd-tcp-address=" + nsqd->tcp(), "-n", "200"});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_EQ(lines_of(tail.out), expected);
}

TEST_F(ToNsqTest, RunningSideBySideLikeAShellPipeline) {
  auto nsqd = start_nsqd();
  ASSERT_TRUE(nsqd);
  // The consumer starts first and waits; lines arrive while it runs.
  ToolProcess tail;
  ASSERT_EQ(tail.spawn(tail_binary(), {"--topic=pipe", "--channel=c",
                                       "--nsqd-tcp-address=" + nsqd->tcp(), "-n", "50"}),
            "");
  ToolProcess pub;
  ASSERT_EQ(pub.spawn(to_nsq_binary(), {"--topic=pipe", "--nsqd-tcp-address=" + nsqd->tcp()}, true),
            "");
  std::vector<std::string> expected;
  for (int i = 0; i < 50; ++i) {
    expected.push_back("piped " + std::to_string(i));
    ASSERT_TRUE(pub.write_stdin(expected.back() + "\n"));
  }
  pub.close_stdin();
  EXPECT_EQ(pub.wait_exit_code(20s), 0) << pub.stderr_text();
  EXPECT_EQ(tail.wait_exit_code(20s), 0) << tail.stderr_text();
  EXPECT_EQ(lines_of(tail.stdout_text()), expected);
}

TEST_F(ToNsqTest, PipedIntoNsqTailThroughLookupd) {
  if (nsqlookupd_binary_path().empty()) GTEST_SKIP() << "nsqlookupd not built";
  NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  auto nsqd = start_nsqd({"--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port()),
                          "--broadcast-address=127.0.0.1"});
  ASSERT_TRUE(nsqd);

  auto pub = run_tool(to_nsq_binary(), {"--topic=rt_lookup", "--nsqd-tcp-address=" + nsqd->tcp()},
                      "one\ntwo\nthree\n");
  ASSERT_EQ(pub.exit_code, 0) << pub.err;
  // nsqd registers the new topic with nsqlookupd; wait until it is known.
  auto deadline = Clock::now() + 10s;
  bool registered = false;
  while (!registered && Clock::now() < deadline) {
    auto reply = http_once(lookupd.http_port(), "GET", "/lookup?topic=rt_lookup");
    registered = reply && reply->status == 200 &&
                 reply->body.find("\"tcp_port\":" + std::to_string(nsqd->process.tcp_port())) !=
                     std::string::npos;
    if (!registered) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(registered);

  auto tail = run_tool(
      tail_binary(),
      {"--topic=rt_lookup", "--channel=c",
       "--lookupd-http-address=127.0.0.1:" + std::to_string(lookupd.http_port()), "-n", "3"});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_EQ(lines_of(tail.out), (std::vector<std::string>{"one", "two", "three"}));
}

TEST_F(ToNsqTest, EveryAddressGetsEveryMessage) {
  auto a = start_nsqd();
  auto b = start_nsqd();
  ASSERT_TRUE(a && b);
  // b given twice: still one producer for it (Go keys producers by address).
  auto pub = run_tool(to_nsq_binary(),
                      {"--topic=fan", "--nsqd-tcp-address=" + a->tcp(),
                       "--nsqd-tcp-address=" + b->tcp(), "--nsqd-tcp-address=" + b->tcp()},
                      "1\n2\n3\n4\n5\n");
  ASSERT_EQ(pub.exit_code, 0) << pub.err;
  EXPECT_EQ(topic_message_count(a->process.http_port(), "fan"), 5);
  EXPECT_EQ(topic_message_count(b->process.http_port(), "fan"), 5);
}

TEST_F(ToNsqTest, DelimiterEmptyChunksAndTheLastByteQuirk) {
  auto nsqd = start_nsqd();
  ASSERT_TRUE(nsqd);
  // Chunks: "a," "bb," "," "cd" -> "a", "bb", (empty, skipped), "c" (the
  // final chunk has no delimiter, yet its last byte is dropped: v1.3.0).
  auto pub =
      run_tool(to_nsq_binary(),
               {"--topic=delim", "--delimiter=,", "--nsqd-tcp-address=" + nsqd->tcp()}, "a,bb,,cd");
  ASSERT_EQ(pub.exit_code, 0) << pub.err;
  ASSERT_EQ(topic_message_count(nsqd->process.http_port(), "delim"), 3);
  auto tail = run_tool(tail_binary(), {"--topic=delim", "--channel=c",
                                       "--nsqd-tcp-address=" + nsqd->tcp(), "-n", "3"});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_EQ(lines_of(tail.out), (std::vector<std::string>{"a", "bb", "c"}));
}

TEST_F(ToNsqTest, RateLimitsMessagesPerSecond) {
  auto nsqd = start_nsqd();
  ASSERT_TRUE(nsqd);
  std::string input;
  for (int i = 0; i < 31; ++i) input += "m\n";
  auto start = Clock::now();
  // One token at start, then 20 a second: 30 more take 1.5 s.
  auto pub = run_tool(to_nsq_binary(),
                      {"--topic=rate", "--rate=20", "--nsqd-tcp-address=" + nsqd->tcp()}, input);
  auto took = Clock::now() - start;
  ASSERT_EQ(pub.exit_code, 0) << pub.err;
  EXPECT_EQ(topic_message_count(nsqd->process.http_port(), "rate"), 31);
  EXPECT_GE(took, 1300ms);
  EXPECT_NE(pub.err.find("Throttling messages rate to max:20/second"), std::string::npos)
      << pub.err;
}

TEST_F(ToNsqTest, PublishErrorIsFatal) {
  auto nsqd = start_nsqd();
  ASSERT_TRUE(nsqd);
  auto pub =
      run_tool(to_nsq_binary(), {"--topic=bad!topic", "--nsqd-tcp-address=" + nsqd->tcp()}, "x\n");
  EXPECT_EQ(pub.exit_code, 1);
  EXPECT_NE(pub.err.find("E_BAD_TOPIC"), std::string::npos) << pub.err;
}

TEST_F(ToNsqTest, SigtermWhileWaitingForInputExitsZero) {
  auto nsqd = start_nsqd();
  ASSERT_TRUE(nsqd);
  ToolProcess pub;
  ASSERT_EQ(pub.spawn(to_nsq_binary(), {"--topic=sig", "--nsqd-tcp-address=" + nsqd->tcp()}, true),
            "");
  ASSERT_TRUE(pub.write_stdin("first\n"));
  // Wait until the first line is published, then signal while stdin is open.
  auto deadline = Clock::now() + 10s;
  while (topic_message_count(nsqd->process.http_port(), "sig") != 1 && Clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(topic_message_count(nsqd->process.http_port(), "sig"), 1);
  ASSERT_TRUE(pub.send_signal(SIGTERM));
  EXPECT_EQ(pub.wait_exit_code(10s), 0) << pub.stderr_text();
}

TEST(ToNsqFlagsTest, ChecksAndTheMissingVersionFlag) {
  if (to_nsq_binary().empty()) GTEST_SKIP() << "to_nsq not built";
  auto no_topic = run_tool(to_nsq_binary(), {"--nsqd-tcp-address=127.0.0.1:1"});
  EXPECT_EQ(no_topic.exit_code, 1);
  EXPECT_NE(no_topic.err.find(" --topic required\n"), std::string::npos) << no_topic.err;

  auto delim = run_tool(to_nsq_binary(), {"--topic=t", "--delimiter=ab", "--nsqd-tcp-address=x:1"});
  EXPECT_EQ(delim.exit_code, 1);
  EXPECT_NE(delim.err.find(" --delimiter must be a single byte\n"), std::string::npos) << delim.err;

  auto no_addr = run_tool(to_nsq_binary(), {"--topic=t"});
  EXPECT_EQ(no_addr.exit_code, 1);
  EXPECT_NE(no_addr.err.find(" --nsqd-tcp-address required\n"), std::string::npos) << no_addr.err;

  // The Go to_nsq has no --version.
  auto version = run_tool(to_nsq_binary(), {"--version"});
  EXPECT_EQ(version.exit_code, 2);
  EXPECT_EQ(version.err.rfind("flag provided but not defined: -version\n", 0), 0u) << version.err;

  auto rate = run_tool(to_nsq_binary(), {"--rate=fast"});
  EXPECT_EQ(rate.exit_code, 2);
  EXPECT_EQ(rate.err.rfind("invalid value \"fast\" for flag -rate: parse error\n", 0), 0u)
      << rate.err;
}

}  // namespace
}  // namespace nsq::testutil
