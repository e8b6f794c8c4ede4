#pragma once

// Shared fixture for the nsqd integration tests: each test starts its own
// nsqd (ephemeral ports, own temp dir) and talks raw protocol to it.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "testutil/nsqd_process.h"
#include "testutil/raw_client.h"
#include "testutil/temp_dir.h"

namespace nsq::integration {

using namespace std::chrono_literals;
using testutil::NsqdProcess;
using testutil::RawClient;
using testutil::TestMessage;
using ms = std::chrono::milliseconds;

// Generous bound for things that should happen "now" (a reply to a command).
inline constexpr ms kReply{5000};
// Bound for "nothing arrives": long enough that a wrongly sent frame is seen.
inline constexpr ms kQuiet{400};

inline ::testing::AssertionResult is_response(const RawClient::ReadResult& r,
                                              const std::string& want) {
  if (r.status == RawClient::ReadStatus::frame && r.frame.type == FrameType::response &&
      r.frame.data == want)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "wanted response '" << want << "', got " << r.describe();
}

inline ::testing::AssertionResult is_error(const RawClient::ReadResult& r,
                                           const std::string& want) {
  if (r.status == RawClient::ReadStatus::frame && r.frame.type == FrameType::error &&
      r.frame.data == want)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "wanted error '" << want << "', got " << r.describe();
}

// Next non-heartbeat frame is response `want`.
inline ::testing::AssertionResult got_response(RawClient& c, const std::string& want,
                                               ms timeout = kReply) {
  return is_response(c.read_skip_heartbeats(timeout), want);
}

// Next non-heartbeat frame is error `want` and the connection stays open.
inline ::testing::AssertionResult got_error(RawClient& c, const std::string& want,
                                            ms timeout = kReply) {
  return is_error(c.read_skip_heartbeats(timeout), want);
}

// Error `want`, then the server closes the connection (a fatal error).
inline ::testing::AssertionResult got_fatal(RawClient& c, const std::string& want) {
  auto r = c.read_skip_heartbeats(kReply);
  auto ok = is_error(r, want);
  if (!ok) return ok;
  if (!c.wait_closed(kReply))
    return ::testing::AssertionFailure() << "'" << want << "' but connection not closed";
  if (!c.frames_before_close().empty())
    return ::testing::AssertionFailure()
           << "frame after the fatal error: '" << c.frames_before_close()[0].data << "'";
  return ::testing::AssertionSuccess();
}

// Nothing at all (heartbeats aside) arrives within timeout.
inline ::testing::AssertionResult got_nothing(RawClient& c, ms timeout = kQuiet) {
  auto r = c.read_skip_heartbeats(timeout);
  if (r.status == RawClient::ReadStatus::timeout) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected nothing, got " << r.describe();
}

// The next frame is a message; decoded.
inline std::optional<TestMessage> read_message(RawClient& c, ms timeout = kReply) {
  auto r = c.read_skip_heartbeats(timeout);
  if (r.status != RawClient::ReadStatus::frame) {
    ADD_FAILURE() << "expected a message, got " << r.describe();
    return std::nullopt;
  }
  auto m = testutil::to_test_message(r.frame);
  if (!m) ADD_FAILURE() << "expected a message, got " << r.describe();
  return m;
}

// A publish on a separate topic whose OK proves every earlier command of
// this connection was processed without an error reply.
inline ::testing::AssertionResult barrier(RawClient& c) {
  if (!c.pub("barrier_topic", "x")) return ::testing::AssertionFailure() << "send failed";
  return got_response(c, "OK");
}

inline std::string id16(char fill = '0') { return std::string(16, fill); }

inline std::string be32(uint32_t v) {
  std::string s(4, '\0');
  s[0] = static_cast<char>(v >> 24);
  s[1] = static_cast<char>(v >> 16);
  s[2] = static_cast<char>(v >> 8);
  s[3] = static_cast<char>(v);
  return s;
}

class NsqdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bin = testutil::nsqd_binary_path();
    if (bin.empty() || ::access(bin.c_str(), X_OK) != 0)
      GTEST_SKIP() << "nsqd binary not built: '" << bin << "'";
  }

  void TearDown() override {
    if (!nsqd_) return;
    // nsqd must survive whatever the test sent, and still shut down cleanly.
    EXPECT_TRUE(nsqd_->alive()) << "nsqd died; log:\n" << nsqd_->log();
    if (nsqd_->alive()) {
      EXPECT_TRUE(nsqd_->stop()) << "no clean exit on SIGTERM; log tail:\n" << tail(nsqd_->log());
    }
  }

  static std::string tail(const std::string& log) {
    return log.size() > 4000 ? log.substr(log.size() - 4000) : log;
  }

  // Starts nsqd on data_dir() (or dir) with extra flags; fails the test if it does not come up.
  void start(std::vector<std::string> extra = {}, bool require_http = false,
             const std::filesystem::path& dir = {}) {
    nsqd_ = std::make_unique<NsqdProcess>();
    NsqdProcess::Options o;
    o.data_path = dir.empty() ? data_dir_.path() : dir;
    o.extra_args = std::move(extra);
    o.require_http = require_http;
    auto err = nsqd_->start(o);
    ASSERT_TRUE(err.empty()) << err;
  }

  // SIGTERM, exit 0 expected; nsqd_ is then gone.
  void stop_clean() {
    ASSERT_TRUE(nsqd_);
    bool ok = nsqd_->stop();
    std::string log = nsqd_->log();
    nsqd_.reset();
    ASSERT_TRUE(ok) << "no clean exit on SIGTERM; log tail:\n" << tail(log);
  }

  // True once nsqd announced its HTTP port (waits a little for the line).
  bool need_http() {
    if (nsqd_ && nsqd_->wait_http_port(3000ms) != 0) return true;
    return false;
  }

  int port() const { return nsqd_->tcp_port(); }
  int http_port() const { return nsqd_ ? nsqd_->http_port() : 0; }

  // Connected, magic sent.
  RawClient client() {
    RawClient c;
    EXPECT_TRUE(c.connect(port())) << "connect to nsqd failed";
    EXPECT_TRUE(c.magic());
    return c;
  }

  // Connected, optionally identified, subscribed (OK read), RDY sent.
  RawClient consumer(const std::string& topic, const std::string& channel, int64_t rdy,
                     const std::string& identify_json = {}) {
    RawClient c = client();
    if (!identify_json.empty()) {
      c.identify(identify_json);
      EXPECT_TRUE(got_response(c, "OK"));
    }
    c.sub(topic, channel);
    EXPECT_TRUE(got_response(c, "OK")) << "SUB " << topic << " " << channel;
    if (rdy > 0) c.rdy(rdy);
    return c;
  }

  void publish(const std::string& topic, const std::string& body) {
    RawClient c = client();
    c.pub(topic, body);
    EXPECT_TRUE(got_response(c, "OK"));
  }

  testutil::TempDir data_dir_;
  std::unique_ptr<NsqdProcess> nsqd_;
};

// A publisher thread and a consumer thread on their own topic while the test
// does other things: stop() checks every published message was delivered.
class BackgroundTraffic {
 public:
  BackgroundTraffic(int port, std::string topic) : port_(port), topic_(std::move(topic)) {
    consumer_.connect(port_);
    consumer_.magic();
    consumer_.sub(topic_, "iso");
    consumer_ok_ = static_cast<bool>(is_response(consumer_.read_skip_heartbeats(kReply), "OK"));
    consumer_.rdy(5);  // within every --max-rdy-count the tests use
    publisher_.connect(port_);
    publisher_.magic();
    pub_thread_ = std::thread([this] { publish_loop(); });
    sub_thread_ = std::thread([this] { consume_loop(); });
  }
  ~BackgroundTraffic() { stop(); }

  // Returns an empty string when everything published was delivered once.
  std::string stop() {
    if (stopped_) return result_;
    stopping_ = true;
    pub_thread_.join();
    sub_thread_.join();
    stopped_ = true;
    if (!consumer_ok_)
      result_ = "background consumer SUB failed";
    else if (pub_errors_ > 0)
      result_ = "background publisher got " + std::to_string(pub_errors_.load()) + " errors";
    else if (received_ != published_)
      result_ = "background consumer got " + std::to_string(received_.load()) + " of " +
                std::to_string(published_.load());
    return result_;
  }

 private:
  void publish_loop() {
    // At least kMinPublished messages, even if the test body is short.
    for (int i = 0; !stopping_ || published_ < kMinPublished; ++i) {
      if (!publisher_.pub(topic_, "bg-" + std::to_string(i)) ||
          !is_response(publisher_.read_skip_heartbeats(kReply), "OK")) {
        ++pub_errors_;
        break;
      }
      ++published_;
      std::this_thread::sleep_for(5ms);  // pacing, not synchronisation
    }
    pub_done_ = true;
  }

  void consume_loop() {
    auto deadline = std::chrono::steady_clock::time_point::max();
    while (std::chrono::steady_clock::now() < deadline) {
      if (pub_done_ && deadline == std::chrono::steady_clock::time_point::max())
        deadline = std::chrono::steady_clock::now() + 5s;
      if (pub_done_ && received_ >= published_) break;
      auto r = consumer_.read_skip_heartbeats(100ms);
      if (r.status == RawClient::ReadStatus::timeout) continue;
      if (r.status != RawClient::ReadStatus::frame) break;
      auto m = testutil::to_test_message(r.frame);
      if (!m) break;
      ++received_;
      consumer_.fin(m->id);
    }
  }

  static constexpr int kMinPublished = 20;
  int port_;
  std::string topic_;
  RawClient consumer_;
  RawClient publisher_;
  bool consumer_ok_ = false;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> pub_done_{false};
  std::atomic<int> published_{0};
  std::atomic<int> received_{0};
  std::atomic<int> pub_errors_{0};
  bool stopped_ = false;
  std::string result_;
  std::thread pub_thread_;
  std::thread sub_thread_;
};

}  // namespace nsq::integration
