// nsq_to_file run as a user would, against our nsqd (and nsqlookupd).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <functional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gunzip.h"
#include "testutil/files.h"
#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"
#include "testutil/tool_process.h"

namespace nsq::testutil {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string to_file_binary() { return tool_binary_path("nsq_to_file"); }

// Polls pred until true or timeout (each poll is a real check of the state).
bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

struct ChannelFigures {
  long long depth = -1;
  long long in_flight = -1;
  long long deferred = -1;
  long long message_count = -1;
  long long clients = -1;
};

ChannelFigures channel_figures(int http_port, const std::string& topic,
                               const std::string& channel) {
  ChannelFigures f;
  auto reply = http_once(http_port, "GET", "/stats?format=json&topic=" + topic);
  if (!reply || reply->status != 200) return f;
  rapidjson::Document doc;
  doc.Parse(reply->body.c_str());
  if (!doc.IsObject() || !doc["topics"].IsArray()) return f;
  for (const auto& t : doc["topics"].GetArray()) {
    for (const auto& c : t["channels"].GetArray()) {
      if (std::string(c["channel_name"].GetString()) != channel) continue;
      f.depth = c["depth"].GetInt64();
      f.in_flight = c["in_flight_count"].GetInt64();
      f.deferred = c["deferred_count"].GetInt64();
      f.message_count = c["message_count"].GetInt64();
      f.clients = c["client_count"].GetInt64();
    }
  }
  return f;
}

// Every line of every file under dir (gzip files decompressed), and the
// files it read; a corrupt gzip file makes `ok` false.
struct DirLines {
  std::vector<std::string> lines;
  std::vector<fs::path> files;
  bool ok = true;
};

DirLines read_dir_lines(const fs::path& dir) {
  DirLines out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    out.files.push_back(e.path());
    std::string data = read_file(e.path());
    if (e.path().extension() == ".gz") {
      auto text = gunzip_members(data);
      if (!text) {
        out.ok = false;
        continue;
      }
      data = *text;
    }
    std::size_t start = 0;
    for (std::size_t nl; (nl = data.find('\n', start)) != std::string::npos; start = nl + 1) {
      out.lines.push_back(data.substr(start, nl - start));
    }
    if (start != data.size()) out.ok = false;  // a partial last line
  }
  std::sort(out.files.begin(), out.files.end());
  return out;
}

std::vector<std::string> numbered(const std::string& prefix, int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

class NsqToFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (to_file_binary().empty()) GTEST_SKIP() << "nsq_to_file not built";
    if (nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
  }

  void start_nsqd(std::vector<std::string> extra = {}) {
    NsqdProcess::Options o;
    o.data_path = dir_.path() / "nsqd";
    fs::create_directories(o.data_path);
    o.require_http = true;
    o.extra_args = {"--broadcast-address=127.0.0.1"};
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    ASSERT_EQ(nsqd_.start(o), "");
  }

  std::string nsqd_tcp() const { return "127.0.0.1:" + std::to_string(nsqd_.tcp_port()); }

  bool publish(const std::string& topic, const std::vector<std::string>& bodies) {
    for (std::size_t i = 0; i < bodies.size(); i += 500) {
      std::string body;
      for (std::size_t j = i; j < std::min(bodies.size(), i + 500); ++j) body += bodies[j] + "\n";
      auto r = http_once(nsqd_.http_port(), "POST", "/mpub?topic=" + topic, body);
      if (!r || r->status != 200) return false;
    }
    return true;
  }

  // All of `count` messages of the topic were FIN'd on the channel.
  bool wait_all_finished(const std::string& topic, long long count,
                         const std::string& channel = "nsq_to_file",
                         std::chrono::milliseconds timeout = 30s) {
    return wait_until(
        [&] {
          auto f = channel_figures(nsqd_.http_port(), topic, channel);
          return f.message_count >= count && f.depth == 0 && f.in_flight == 0 && f.deferred == 0;
        },
        timeout);
  }

  TempDir dir_;
  NsqdProcess nsqd_;
};

TEST_F(NsqToFileTest, VersionAndFlagErrors) {
  auto v = run_tool(to_file_binary(), {"--version"});
  EXPECT_EQ(v.exit_code, 0);
  // Go's line and the commit the build was made from.
  EXPECT_TRUE(std::regex_match(v.out, std::regex(R"(nsq_to_file v1\.3\.0 \(commit \w+\)\n)")))
      << v.out;

  auto bad = run_tool(to_file_binary(), {"--bogus"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("flag provided but not defined: -bogus\nUsage of nsqd:\n", 0), 0u)
      << bad.err;

  auto bad_value = run_tool(to_file_binary(), {"--max-in-flight=lots"});
  EXPECT_EQ(bad_value.exit_code, 2);
  EXPECT_NE(bad_value.err.find("invalid value \"lots\" for flag -max-in-flight: parse error"),
            std::string::npos);

  auto no_source = run_tool(to_file_binary(), {"--topic=t"});
  EXPECT_EQ(no_source.exit_code, 1);
  EXPECT_NE(no_source.err.find(" --nsqd-tcp-address or --lookupd-http-address required.\n"),
            std::string::npos)
      << no_source.err;

  auto level =
      run_tool(to_file_binary(), {"--topic=t", "--nsqd-tcp-address=127.0.0.1:1", "--gzip-level=0"});
  EXPECT_EQ(level.exit_code, 1);
  EXPECT_NE(level.err.find("invalid --gzip-level value (0), should be 1-9"), std::string::npos);

  auto no_topic = run_tool(to_file_binary(), {"--nsqd-tcp-address=127.0.0.1:1"});
  EXPECT_EQ(no_topic.exit_code, 1);
  EXPECT_NE(no_topic.err.find("--topic or --topic-pattern required"), std::string::npos);

  auto no_rev = run_tool(to_file_binary(), {"--topic=t", "--nsqd-tcp-address=127.0.0.1:1", "--gzip",
                                            "--filename-format=<TOPIC>.log"});
  EXPECT_EQ(no_rev.exit_code, 1);
  EXPECT_NE(no_rev.err.find("missing <REV> in --filename-format"), std::string::npos);

  auto extra = run_tool(to_file_binary(), {"--topic=t", "stray"});
  EXPECT_EQ(extra.exit_code, 1);
  EXPECT_NE(extra.err.find("unknown arguments: [stray]"), std::string::npos);
}

TEST_F(NsqToFileTest, RotatedGzipFilesHoldExactlyThePublishedLines) {
  start_nsqd();
  const auto published = numbered("message body number ", 0, 3000);
  ASSERT_TRUE(publish("orders", published));
  const fs::path work = dir_.path() / "work";
  const fs::path out = dir_.path() / "out";
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_file_binary(), {"--topic=orders", "--nsqd-tcp-address=" + nsqd_tcp(),
                                          "--gzip", "--gzip-level=9", "--rotate-size=20000",
                                          "--sync-interval=100ms", "--work-dir=" + work.string(),
                                          "--output-dir=" + out.string(), "--host-identifier=box"}),
            "");
  ASSERT_TRUE(wait_all_finished("orders", 3000)) << tool.stderr_text();
  tool.send_signal(SIGTERM);
  ASSERT_EQ(tool.wait_exit_code(30s), 0) << tool.stderr_text();

  auto found = read_dir_lines(out);
  EXPECT_TRUE(found.ok);
  EXPECT_GE(found.files.size(), 3u) << "rotation by size";
  for (const auto& f : found.files) {
    EXPECT_EQ(f.parent_path(), out);
    EXPECT_EQ(f.filename().string().rfind("orders.box-00000", 0), 0u) << f;
    EXPECT_EQ(f.extension(), ".gz");
  }
  EXPECT_TRUE(read_dir_lines(work).files.empty()) << "every file moved out of the work dir";
  auto sorted_found = found.lines;
  auto sorted_published = published;
  std::sort(sorted_found.begin(), sorted_found.end());
  std::sort(sorted_published.begin(), sorted_published.end());
  EXPECT_EQ(sorted_found, sorted_published);
}

TEST_F(NsqToFileTest, SigtermMidStreamLosesNothing) {
  start_nsqd();
  const auto first = numbered("early-", 0, 4000);
  ASSERT_TRUE(publish("stream", first));
  const fs::path out1 = dir_.path() / "run1";
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_file_binary(), {"--topic=stream", "--nsqd-tcp-address=" + nsqd_tcp(),
                                          "--gzip", "--max-in-flight=50", "--sync-interval=1h",
                                          "--rotate-size=30000", "--output-dir=" + out1.string()}),
            "");
  // Publishing goes on while nsq_to_file works and is stopped.
  std::atomic<bool> publishing{true};
  std::atomic<int> batches{0};
  std::thread publisher([&] {
    for (int b = 0; b < 20 && publishing; ++b) {
      if (!publish("stream", numbered("late-" + std::to_string(b) + "-", 0, 100))) break;
      ++batches;
    }
  });
  // Mid-stream: a first batch synced. (Not "syncing 50": whether a batch
  // reaches --max-in-flight before the consumer reports itself starved, at
  // 85% of it, depends on how the deliveries happen to be split into reads.)
  ASSERT_TRUE(tool.wait_stderr("records to disk", 20s)) << tool.stderr_text();
  tool.send_signal(SIGTERM);
  const auto code = tool.wait_exit_code(40s);
  publishing = false;
  publisher.join();
  ASSERT_EQ(code, 0) << tool.stderr_text();

  std::set<std::string> expected(first.begin(), first.end());
  for (int b = 0; b < batches; ++b) {
    for (auto& s : numbered("late-" + std::to_string(b) + "-", 0, 100)) expected.insert(s);
  }
  auto run1 = read_dir_lines(out1);
  ASSERT_TRUE(run1.ok) << "every file is complete gzip with whole lines";
  std::set<std::string> written(run1.lines.begin(), run1.lines.end());
  for (const auto& line : written) EXPECT_EQ(expected.count(line), 1u) << line;
  ASSERT_LT(written.size(), expected.size()) << "stopped in the middle";

  // A clean stop answers every message it was given: what was FIN'd is
  // exactly what was written, the rest is still queued in the channel.
  const long long total = static_cast<long long>(expected.size());
  ASSERT_TRUE(wait_until(
      [&] {
        auto f = channel_figures(nsqd_.http_port(), "stream", "nsq_to_file");
        return f.clients == 0 && f.in_flight == 0 && f.message_count == total;
      },
      10s))
      << [&] {
           auto f = channel_figures(nsqd_.http_port(), "stream", "nsq_to_file");
           return "clients " + std::to_string(f.clients) + " in_flight " +
                  std::to_string(f.in_flight) + " messages " + std::to_string(f.message_count) +
                  " of " + std::to_string(total);
         }();
  auto left = channel_figures(nsqd_.http_port(), "stream", "nsq_to_file");
  EXPECT_EQ(left.depth + left.deferred, total - static_cast<long long>(written.size()));

  // A second run takes the rest: together they hold every message.
  const fs::path out2 = dir_.path() / "run2";
  ToolProcess again;
  ASSERT_EQ(
      again.spawn(to_file_binary(), {"--topic=stream", "--nsqd-tcp-address=" + nsqd_tcp(),
                                     "--sync-interval=100ms", "--output-dir=" + out2.string()}),
      "");
  ASSERT_TRUE(wait_all_finished("stream", total)) << again.stderr_text();
  again.send_signal(SIGINT);
  ASSERT_EQ(again.wait_exit_code(30s), 0) << again.stderr_text();
  auto run2 = read_dir_lines(out2);
  ASSERT_TRUE(run2.ok);
  written.insert(run2.lines.begin(), run2.lines.end());
  EXPECT_EQ(written, expected);
}

TEST_F(NsqToFileTest, IntervalRotationWithDatetimeNames) {
  start_nsqd();
  const fs::path out = dir_.path() / "out";
  ToolProcess tool;
  ASSERT_EQ(
      tool.spawn(to_file_binary(), {"--topic=iv", "--nsqd-tcp-address=" + nsqd_tcp(), "--gzip",
                                    "--rotate-interval=300ms", "--sync-interval=50ms",
                                    "--datetime-format=%Y", "--output-dir=" + out.string()}),
      "");
  ASSERT_TRUE(publish("iv", numbered("a", 0, 10)));
  ASSERT_TRUE(wait_all_finished("iv", 10)) << tool.stderr_text();
  ASSERT_TRUE(tool.wait_stderr("since last open, rotating...", 10s)) << tool.stderr_text();
  ASSERT_TRUE(publish("iv", numbered("b", 0, 10)));
  ASSERT_TRUE(wait_all_finished("iv", 20)) << tool.stderr_text();
  tool.send_signal(SIGTERM);
  ASSERT_EQ(tool.wait_exit_code(30s), 0) << tool.stderr_text();

  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string short_host = std::string(host).substr(0, std::string(host).find('.'));
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  const std::string year = std::to_string(local.tm_year + 1900);
  auto found = read_dir_lines(out);
  ASSERT_TRUE(found.ok);
  ASSERT_GE(found.files.size(), 2u);
  for (const auto& f : found.files) {
    const std::string name = f.filename().string();
    EXPECT_EQ(name.rfind("iv." + short_host + "-0000", 0), 0u) << name;
    EXPECT_EQ(name.substr(name.size() - 12), "." + year + ".log.gz") << name;
  }
  auto lines = found.lines;
  std::sort(lines.begin(), lines.end());
  auto expected = numbered("a", 0, 10);
  for (auto& b : numbered("b", 0, 10)) expected.push_back(b);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(lines, expected);
  EXPECT_NE(read_file(found.files.front()).size(), 0u);
  EXPECT_EQ(gunzip_members(read_file(found.files.front())).value_or(""),
            "a0\na1\na2\na3\na4\na5\na6\na7\na8\na9\n");
}

TEST_F(NsqToFileTest, SighupClosesAndMovesTheFileThenANewRevisionOpens) {
  start_nsqd();
  const fs::path work = dir_.path() / "work";
  const fs::path out = dir_.path() / "out";
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_file_binary(),
                       {"--topic=t", "--nsqd-tcp-address=" + nsqd_tcp(), "--sync-interval=50ms",
                        "--work-dir=" + work.string(), "--output-dir=" + out.string(),
                        "--filename-format=<TOPIC>/<HOST><REV>-<PID>.log", "--host-identifier=h"}),
            "");
  ASSERT_TRUE(publish("t", numbered("a", 0, 5)));
  ASSERT_TRUE(wait_all_finished("t", 5)) << tool.stderr_text();
  EXPECT_TRUE(read_dir_lines(out).files.empty()) << "still open in the work dir";
  tool.send_signal(SIGHUP);
  const fs::path first = out / "t" / ("h-000000-" + std::to_string(tool.pid()) + ".log");
  ASSERT_TRUE(wait_until([&] { return fs::exists(first); }, 10s)) << tool.stderr_text();
  EXPECT_EQ(read_file(first), "a0\na1\na2\na3\na4\n");
  ASSERT_TRUE(publish("t", numbered("b", 0, 3)));
  ASSERT_TRUE(wait_all_finished("t", 8)) << tool.stderr_text();
  tool.send_signal(SIGTERM);
  ASSERT_EQ(tool.wait_exit_code(30s), 0) << tool.stderr_text();
  const fs::path second = out / "t" / ("h-000001-" + std::to_string(tool.pid()) + ".log");
  EXPECT_EQ(read_file(second), "b0\nb1\nb2\n");
  EXPECT_TRUE(read_dir_lines(work).files.empty());
}

TEST_F(NsqToFileTest, DiscoversTopicsMatchingThePatternThroughLookupd) {
  NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  start_nsqd({"--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port())});
  ASSERT_TRUE(publish("match_a", {"one", "two"}));
  ASSERT_TRUE(publish("other", {"three"}));
  const fs::path out = dir_.path() / "out";
  ToolProcess tool;
  ASSERT_EQ(
      tool.spawn(to_file_binary(),
                 {"--topic-pattern=^match", "--topic-refresh=100ms",
                  "--lookupd-http-address=127.0.0.1:" + std::to_string(lookupd.http_port()),
                  "--sync-interval=50ms", "--output-dir=" + out.string(),
                  "--filename-format=<TOPIC>.log", "--consumer-opt=lookupd_poll_interval,100ms"}),
      "");
  ASSERT_TRUE(wait_all_finished("match_a", 2)) << tool.stderr_text();
  ASSERT_TRUE(tool.wait_stderr("skipping topic other (doesn't match pattern ^match)", 10s))
      << tool.stderr_text();
  tool.send_signal(SIGTERM);
  ASSERT_EQ(tool.wait_exit_code(30s), 0) << tool.stderr_text();
  EXPECT_EQ(read_file(out / "match_a.log"), "one\ntwo\n");
  EXPECT_FALSE(fs::exists(out / "other.log"));
}

}  // namespace
}  // namespace nsq::testutil
