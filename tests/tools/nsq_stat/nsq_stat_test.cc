// nsq_stat run as a user would, against our nsqd (and nsqlookupd).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
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

std::string stat_binary() { return tool_binary_path("nsq_stat"); }

// The /stats figures of one channel, in nsq_stat's column order after the
// two rates: total mem disk inflt def req t-o msgs clients.
std::vector<long long> broker_channel_figures(int http_port, const std::string& topic,
                                              const std::string& channel) {
  auto reply = http_once(http_port, "GET", "/stats?format=json&topic=" + topic);
  if (!reply || reply->status != 200) return {};
  rapidjson::Document doc;
  doc.Parse(reply->body.c_str());
  for (const auto& t : doc["topics"].GetArray()) {
    if (std::string(t["topic_name"].GetString()) != topic) continue;
    for (const auto& c : t["channels"].GetArray()) {
      if (std::string(c["channel_name"].GetString()) != channel) continue;
      const long long depth = c["depth"].GetInt64();
      const long long backend = c["backend_depth"].GetInt64();
      return {depth,
              depth - backend,
              backend,
              c["in_flight_count"].GetInt64(),
              c["deferred_count"].GetInt64(),
              c["requeue_count"].GetInt64(),
              c["timeout_count"].GetInt64(),
              c["message_count"].GetInt64(),
              c["client_count"].GetInt64()};
    }
  }
  return {};
}

// The numbers of one report line (ingress, egress, then the nine figures).
std::vector<long long> row_numbers(const std::string& line) {
  std::vector<long long> out;
  static const std::regex number("-?[0-9]+");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), number);
       it != std::sregex_iterator(); ++it) {
    out.push_back(std::stoll(it->str()));
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

const char* kHeader1 =
    "------rate------+----------------depth----------------+--------------metadata---------------";
const char* kHeader2 =
    "ingress  egress |   total     mem    disk inflt   def |     req     t-o         msgs clients";

class NsqStatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (stat_binary().empty()) GTEST_SKIP() << "nsq_stat not built";
    if (nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
  }

  // nsqd announcing 127.0.0.1 (nsq_stat asks /info for where to get /stats).
  void start_nsqd(std::vector<std::string> extra = {}) {
    NsqdProcess::Options o;
    o.data_path = dir_.path();
    o.require_http = true;
    o.extra_args = {"--broadcast-address=127.0.0.1"};
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    ASSERT_EQ(nsqd_.start(o), "");
  }

  void create_channel(const std::string& topic, const std::string& channel) {
    auto t = http_once(nsqd_.http_port(), "POST", "/topic/create?topic=" + topic);
    ASSERT_TRUE(t && t->status == 200);
    auto c = http_once(nsqd_.http_port(), "POST",
                       "/channel/create?topic=" + topic + "&channel=" + channel);
    ASSERT_TRUE(c && c->status == 200);
  }

  void publish(const std::string& topic, int n) {
    std::string body;
    for (int i = 0; i < n; ++i) body += "message-" + std::to_string(i) + "\n";
    auto r = http_once(nsqd_.http_port(), "POST", "/mpub?topic=" + topic, body);
    ASSERT_TRUE(r && r->status == 200) << (r ? r->describe() : "no reply");
  }

  // Waits until the channel holds `n` messages in all: with lookupd
  // configured, a topic created at runtime asks lookupd for its channels
  // before it starts, so /mpub answers before its messages reach "c".
  static void await_channel_messages(int http_port, const std::string& topic,
                                     const std::string& channel, long long n) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    for (;;) {
      auto figures = broker_channel_figures(http_port, topic, channel);
      if (figures.size() == 9 && figures[7] == n) return;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "channel never got " << n;
      std::this_thread::sleep_for(20ms);  // polling with a deadline
    }
  }

  void expect_rows_match_broker(const ToolResult& r, std::size_t rows) {
    auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2 + rows) << r.out << r.err;
    EXPECT_EQ(lines[0], kHeader1);
    EXPECT_EQ(lines[1], kHeader2);
    auto broker = broker_channel_figures(nsqd_.http_port(), "t", "c");
    ASSERT_EQ(broker.size(), 9u);
    for (std::size_t i = 2; i < lines.size(); ++i) {
      auto numbers = row_numbers(lines[i]);
      ASSERT_EQ(numbers.size(), 11u) << lines[i];
      EXPECT_EQ(numbers[0], 0) << "ingress with nothing published";
      EXPECT_EQ(numbers[1], 0) << "egress with nothing consumed";
      EXPECT_EQ(std::vector<long long>(numbers.begin() + 2, numbers.end()), broker) << lines[i];
    }
  }

  TempDir dir_;
  NsqdProcess nsqd_;
};

TEST_F(NsqStatTest, VersionAndBadFlags) {
  auto v = run_tool(stat_binary(), {"--version"});
  EXPECT_EQ(v.exit_code, 0);
  // Go's line and the commit the build was made from.
  EXPECT_TRUE(std::regex_match(v.out, std::regex(R"(nsq_stat v1\.3\.0 \(commit \w+\)\n)")))
      << v.out;

  auto bad = run_tool(stat_binary(), {"--bogus"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("flag provided but not defined: -bogus\nUsage of ", 0), 0u) << bad.err;
  EXPECT_NE(bad.err.find("  -count value\n    \tnumber of reports\n"), std::string::npos);

  auto bad_count = run_tool(stat_binary(), {"--count", "two"});
  EXPECT_EQ(bad_count.exit_code, 2);
  EXPECT_NE(bad_count.err.find("invalid value \"two\" for flag -count: strconv.ParseInt: "
                               "parsing \"two\": invalid syntax"),
            std::string::npos);

  auto missing = run_tool(stat_binary(), {"--topic", "t"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find(" --topic and --channel are required\n"), std::string::npos);

  auto both = run_tool(stat_binary(), {"--topic", "t", "--channel", "c", "--nsqd-http-address",
                                       "a:1", "--lookupd-http-address", "b:1"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.err.find("use --nsqd-http-address or --lookupd-http-address not both"),
            std::string::npos);

  auto scheme = run_tool(stat_binary(),
                         {"--topic", "t", "--channel", "c", "--nsqd-http-address", "http://a:1"});
  EXPECT_EQ(scheme.exit_code, 1);
  EXPECT_NE(scheme.err.find("--nsqd-http-address error - address should not contain scheme"),
            std::string::npos);

  auto zero = run_tool(stat_binary(), {"--topic", "t", "--channel", "c", "--count", "0",
                                       "--nsqd-http-address", "a:1"});
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_NE(zero.err.find("--count should be positive"), std::string::npos);
}

TEST_F(NsqStatTest, CountRowsMatchNsqdStats) {
  start_nsqd();
  create_channel("t", "c");
  publish("t", 10);
  auto r = run_tool(stat_binary(),
                    {"--topic=t", "--channel=c", "--interval=100ms", "--count=2",
                     "--nsqd-http-address=127.0.0.1:" + std::to_string(nsqd_.http_port())});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_rows_match_broker(r, 2);
  auto numbers = row_numbers(lines_of(r.out).back());
  ASSERT_EQ(numbers.size(), 11u);
  EXPECT_EQ(numbers[2], 10);  // total depth
  EXPECT_EQ(numbers[9], 10);  // msgs
}

TEST_F(NsqStatTest, CountRowsMatchThroughLookupd) {
  NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  start_nsqd({"--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port())});
  create_channel("t", "c");
  publish("t", 7);
  await_channel_messages(nsqd_.http_port(), "t", "c", 7);
  // Registration reaches lookupd asynchronously: wait for /lookup to list it.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  bool registered = false;
  while (!registered && std::chrono::steady_clock::now() < deadline) {
    auto reply = http_once(lookupd.http_port(), "GET", "/lookup?topic=t");
    registered =
        reply && reply->status == 200 &&
        reply->body.find("\"http_port\":" + std::to_string(nsqd_.http_port())) != std::string::npos;
    if (!registered) std::this_thread::sleep_for(20ms);  // polling with a deadline
  }
  ASSERT_TRUE(registered) << lookupd.log();
  auto r = run_tool(stat_binary(),
                    {"--topic=t", "--channel=c", "--interval=100ms", "--count=1",
                     "--lookupd-http-address=127.0.0.1:" + std::to_string(lookupd.http_port())});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_rows_match_broker(r, 1);
}

TEST_F(NsqStatTest, FiguresAreSummedOverEveryProducer) {
  NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  const std::string lookupd_flag =
      "--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port());
  start_nsqd({lookupd_flag});
  TempDir second_dir;
  NsqdProcess second;
  NsqdProcess::Options o;
  o.data_path = second_dir.path();
  o.require_http = true;
  o.extra_args = {"--broadcast-address=127.0.0.1", lookupd_flag};
  ASSERT_EQ(second.start(o), "");
  create_channel("t", "c");
  publish("t", 3);
  for (const char* path : {"/topic/create?topic=t", "/channel/create?topic=t&channel=c"}) {
    auto r = http_once(second.http_port(), "POST", path);
    ASSERT_TRUE(r && r->status == 200);
  }
  auto pub = http_once(second.http_port(), "POST", "/mpub?topic=t", "x\ny\nz\nw\n");
  ASSERT_TRUE(pub && pub->status == 200);
  await_channel_messages(nsqd_.http_port(), "t", "c", 3);
  await_channel_messages(second.http_port(), "t", "c", 4);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  bool both = false;
  while (!both && std::chrono::steady_clock::now() < deadline) {
    auto reply = http_once(lookupd.http_port(), "GET", "/lookup?topic=t");
    both = reply && reply->status == 200 &&
           reply->body.find("\"http_port\":" + std::to_string(nsqd_.http_port())) !=
               std::string::npos &&
           reply->body.find("\"http_port\":" + std::to_string(second.http_port())) !=
               std::string::npos;
    if (!both) std::this_thread::sleep_for(20ms);  // polling with a deadline
  }
  ASSERT_TRUE(both) << lookupd.log();
  auto r = run_tool(stat_binary(),
                    {"--topic=t", "--channel=c", "--interval=100ms", "--count=1",
                     "--lookupd-http-address=127.0.0.1:" + std::to_string(lookupd.http_port())});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  auto first = broker_channel_figures(nsqd_.http_port(), "t", "c");
  auto other = broker_channel_figures(second.http_port(), "t", "c");
  ASSERT_EQ(first.size(), 9u);
  ASSERT_EQ(other.size(), 9u);
  std::vector<long long> sum(9);
  for (std::size_t i = 0; i < 9; ++i) sum[i] = first[i] + other[i];
  auto numbers = row_numbers(lines[2]);
  ASSERT_EQ(numbers.size(), 11u);
  EXPECT_EQ(std::vector<long long>(numbers.begin() + 2, numbers.end()), sum) << lines[2];
  EXPECT_EQ(numbers[2], 7);  // 3 + 4 queued
}

TEST_F(NsqStatTest, IngressIsTheMessageRateBetweenPolls) {
  start_nsqd();
  create_channel("t", "c");
  ToolProcess stat;
  ASSERT_EQ(stat.spawn(stat_binary(),
                       {"--topic=t", "--channel=c", "--interval=1s", "--count=1",
                        "--nsqd-http-address=127.0.0.1:" + std::to_string(nsqd_.http_port())}),
            "");
  // The headers come after the baseline poll: what is published now is
  // counted by the next one, a second later.
  ASSERT_TRUE(stat.wait_stdout_lines(2, 10s)) << stat.stderr_text();
  publish("t", 20);
  ASSERT_EQ(stat.wait_exit_code(10s), 0) << stat.stderr_text();
  auto lines = lines_of(stat.stdout_text());
  ASSERT_EQ(lines.size(), 3u);
  auto numbers = row_numbers(lines[2]);
  ASSERT_EQ(numbers.size(), 11u);
  EXPECT_EQ(numbers[0], 20) << lines[2];  // ingress: 20 messages / 1s
  EXPECT_EQ(numbers[1], 0) << lines[2];   // egress: 20 - 20 more in depth
  EXPECT_EQ(numbers[2], 20) << lines[2];
}

TEST_F(NsqStatTest, MissingChannelIsFatal) {
  start_nsqd();
  create_channel("t", "c");
  auto r = run_tool(stat_binary(),
                    {"--topic=t", "--channel=nope", "--interval=100ms", "--count=1",
                     "--nsqd-http-address=127.0.0.1:" + std::to_string(nsqd_.http_port())});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ERROR: failed to find channel(nope) in stats metadata for topic(t)\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(NsqStatTest, UnreachableNsqdIsFatal) {
  auto r = run_tool(stat_binary(),
                    {"--topic=t", "--channel=c", "--count=1", "--nsqd-http-address=127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ERROR: failed to get topic producers - "), std::string::npos) << r.err;
}

TEST_F(NsqStatTest, UnknownTopicAtLookupdIsFatalWithTheResponse) {
  NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  auto r = run_tool(stat_binary(),
                    {"--topic=nowhere", "--channel=c", "--count=1",
                     "--lookupd-http-address=127.0.0.1:" + std::to_string(lookupd.http_port())});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ERROR: failed to get topic producers - got response 404 Not Found "
                       "\"{\\\"message\\\":\\\"TOPIC_NOT_FOUND\\\"}\"\n"),
            std::string::npos)
      << r.err;
}

TEST_F(NsqStatTest, SigtermExitsZero) {
  start_nsqd();
  create_channel("t", "c");
  ToolProcess stat;
  ASSERT_EQ(stat.spawn(stat_binary(),
                       {"--topic=t", "--channel=c", "--interval=50ms",
                        "--nsqd-http-address=127.0.0.1:" + std::to_string(nsqd_.http_port())}),
            "");
  ASSERT_TRUE(stat.wait_stdout_lines(3, 10s)) << stat.stderr_text();
  stat.send_signal(SIGTERM);
  EXPECT_EQ(stat.wait_exit_code(10s), 0);
}

}  // namespace
}  // namespace nsq::testutil
