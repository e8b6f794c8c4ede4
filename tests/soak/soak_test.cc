// Soak (issue 8): nsqd under a steady mixed load for NSQ_SOAK_SECONDS
// (default 120; 1800 for the long run by hand), with nsqd's RSS, open fds
// and the publish-to-receive latency sampled each interval (duration/30, at
// least 5 s). It fails on a growth trend in the second half of the run (see
// soak_stats.h) or if a message is lost.
//
// The load, per second: 1,000 messages of 200 bytes (MPUB of 10 every
// 10 ms) to topic "soak"; channel "a" FINs everything, channel "b" requeues
// about one message in eight once (by its id's last digit); one short-lived
// consumer on an ephemeral channel (connect, SUB, one message, close) and
// one HTTP /pub, so connections, channels and HTTP requests come and go.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include "integration/fault_harness.h"
#include "soak/soak_stats.h"

namespace nsq::soak {
namespace {

using namespace std::chrono_literals;
using integration::fault::fd_count;
using integration::fault::rss_kib;
using testutil::NsqdProcess;
using testutil::RawClient;
using Clock = std::chrono::steady_clock;

constexpr int kBatch = 10;  // per 10 ms: 1,000 msgs/s
constexpr std::size_t kBodySize = 200;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Body: publish time (steady clock, same machine) as decimal, then padding.
std::string stamped_body() {
  std::string b = std::to_string(now_ns()) + ":";
  b.resize(kBodySize, '.');
  return b;
}

class Workload {
 public:
  explicit Workload(int port, int http_port) : port_(port), http_port_(http_port) {}
  ~Workload() { stop(); }

  std::string start() {
    if (!subscribe(a_, "a") || !subscribe(b_, "b")) return "SUB failed";
    threads_.emplace_back([this] { publish_loop(); });
    threads_.emplace_back([this] { consume_loop(a_, false); });
    threads_.emplace_back([this] { consume_loop(b_, true); });
    threads_.emplace_back([this] { churn_loop(); });
    return {};
  }

  void stop() {
    stopping_ = true;
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  // Latencies and counts since the last call.
  Sample take_interval() {
    std::vector<double> lat;
    {
      std::lock_guard lock(mu_);
      lat.swap(latencies_ms_);
    }
    Sample s;
    std::sort(lat.begin(), lat.end());
    if (!lat.empty()) {
      s.p50_ms = lat[lat.size() / 2];
      s.p99_ms = lat[std::min(lat.size() - 1, lat.size() * 99 / 100)];
    }
    long pub = published_.load(), got = consumed_a_.load();
    s.published = static_cast<double>(pub - last_pub_);
    s.consumed = static_cast<double>(got - last_got_);
    last_pub_ = pub;
    last_got_ = got;
    return s;
  }

  long published() const { return published_; }
  long consumed_a() const { return consumed_a_; }
  long errors() const { return errors_; }
  // Returns once no publish is in progress: every message counted as
  // published is then in nsqd, and nothing more will be.
  void stop_publishing() {
    std::lock_guard lock(publish_mu_);
    publishing_ = false;
  }

 private:
  bool subscribe(RawClient& c, const std::string& channel) {
    if (!c.connect(port_) || !c.magic() || !c.sub("soak", channel)) return false;
    auto r = c.read_skip_heartbeats(5000ms);
    if (r.status != RawClient::ReadStatus::frame || r.frame.data != "OK") return false;
    return c.rdy(100);
  }

  void publish_loop() {
    RawClient p;
    if (!p.connect(port_) || !p.magic()) {
      ++errors_;
      return;
    }
    auto next = Clock::now();
    while (!stopping_) {
      {
        std::lock_guard lock(publish_mu_);
        if (!publishing_) return;
        std::vector<std::string> batch;
        for (int i = 0; i < kBatch; ++i) batch.push_back(stamped_body());
        auto r = p.mpub("soak", batch) ? p.read_skip_heartbeats(5000ms) : RawClient::ReadResult{};
        if (r.status != RawClient::ReadStatus::frame || r.frame.data != "OK") {
          ++errors_;
          return;
        }
        published_ += kBatch;
      }
      next += 10ms;
      std::this_thread::sleep_until(next);  // pacing the steady rate
    }
  }

  void consume_loop(RawClient& c, bool requeue_some) {
    while (!stopping_) {
      auto r = c.read_skip_heartbeats(200ms);
      if (r.status == RawClient::ReadStatus::timeout) continue;
      auto m = r.status == RawClient::ReadStatus::frame ? testutil::to_test_message(r.frame)
                                                        : std::nullopt;
      if (!m) {
        ++errors_;
        return;
      }
      if (requeue_some && m->attempts == 1 && m->id.back() % 10 == 0) {
        c.req(m->id, 0);
        continue;
      }
      c.fin(m->id);
      if (requeue_some) continue;
      int64_t sent = std::strtoll(m->body.c_str(), nullptr, 10);
      double ms = static_cast<double>(now_ns() - sent) / 1e6;
      {
        std::lock_guard lock(mu_);
        latencies_ms_.push_back(ms);
      }
      ++consumed_a_;
    }
  }

  // One short-lived consumer and one HTTP publish per second.
  void churn_loop() {
    auto next = Clock::now();
    while (!stopping_) {
      RawClient c;
      bool ok = c.connect(port_) && c.magic() && c.sub("soak", "churn#ephemeral") && c.rdy(1);
      for (int frames = 0; ok && frames < 3; ++frames) {  // OK, then a message
        auto r = c.read_skip_heartbeats(2000ms);
        if (r.status != RawClient::ReadStatus::frame)
          ok = false;
        else if (auto m = testutil::to_test_message(r.frame)) {
          c.fin(m->id);
          break;
        }
      }
      c.close();
      if (!ok && publishing_) ++errors_;
      // To the consumed topic: a topic without channels would keep every
      // message (memory queue, then disk), which reads as a slow RSS creep.
      if (std::lock_guard lock(publish_mu_); publishing_) {
        auto h = testutil::http_once(http_port_, "POST", "/pub?topic=soak", stamped_body());
        if (!h || h->status != 200)
          ++errors_;
        else
          ++published_;
      }
      next += 1s;
      while (!stopping_ && Clock::now() < next) std::this_thread::sleep_for(50ms);
    }
  }

  int port_;
  int http_port_;
  RawClient a_, b_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::mutex publish_mu_;               // held for a whole publish, so stopping waits for it
  std::atomic<bool> publishing_{true};  // cleared under publish_mu_
  std::atomic<long> published_{0};
  std::atomic<long> consumed_a_{0};
  std::atomic<long> errors_{0};
  long last_pub_ = 0, last_got_ = 0;  // take_interval's thread only
  std::mutex mu_;
  std::vector<double> latencies_ms_;  // guarded by mu_
};

double env_seconds() {
  const char* s = std::getenv("NSQ_SOAK_SECONDS");
  double v = s ? std::atof(s) : 120;
  return v > 0 ? v : 120;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

TEST(Soak, SteadyMixedLoadShowsNoGrowth) {
  auto bin = testutil::nsqd_binary_path();
  if (bin.empty() || ::access(bin.c_str(), X_OK) != 0) GTEST_SKIP() << "nsqd not built: " << bin;
  const double duration = env_seconds();
  const auto interval = std::chrono::duration<double>(std::max(5.0, duration / 30));

  testutil::TempDir dir;
  NsqdProcess nsqd;
  NsqdProcess::Options o;
  o.data_path = dir.path();
  o.require_http = true;
  ASSERT_EQ(nsqd.start(o), "");
  Workload load(nsqd.tcp_port(), nsqd.http_port());
  ASSERT_EQ(load.start(), "");

  std::vector<Sample> samples;
  auto t0 = Clock::now();
  auto next = t0;
  std::cout << "soak: " << duration << " s, a sample every " << interval.count() << " s\n"
            << "   t_s  rss_kib  fds  p50_ms  p99_ms  pub/s  con/s" << std::endl;
  while (Clock::now() - t0 < std::chrono::duration<double>(duration)) {
    next += std::chrono::duration_cast<Clock::duration>(interval);
    std::this_thread::sleep_until(next);  // the sampling period
    ASSERT_TRUE(nsqd.alive()) << nsqd.log();
    Sample s = load.take_interval();
    s.t_s = std::chrono::duration<double>(Clock::now() - t0).count();
    s.rss_kib = static_cast<double>(rss_kib(nsqd.pid()));
    s.fds = fd_count(nsqd.pid());
    samples.push_back(s);
    char line[160];
    std::snprintf(line, sizeof line, "%6.0f %8.0f %4.0f %7.2f %7.2f %6.0f %6.0f", s.t_s, s.rss_kib,
                  s.fds, s.p50_ms, s.p99_ms, s.published / interval.count(),
                  s.consumed / interval.count());
    std::cout << line << std::endl;
  }

  // Everything published reaches channel "a" once the publisher stops.
  load.stop_publishing();
  auto drained = Clock::now() + 30s;
  while (load.consumed_a() < load.published() && Clock::now() < drained) {
    std::this_thread::sleep_for(50ms);  // polling the counters
  }
  load.stop();
  EXPECT_EQ(load.errors(), 0);
  if (load.consumed_a() != load.published()) {
    // Queued (depth) or out to the consumer (in flight)?
    auto st = testutil::http_once(nsqd.http_port(), "GET", "/stats?format=json&topic=soak", "");
    ADD_FAILURE() << "messages lost or stuck; nsqd's /stats: " << (st ? st->body : "(no reply)");
  }
  ASSERT_GE(samples.size(), 4u);

  // Criteria, over the second half (see soak_stats.h):
  //  - RSS: growth below 8 MiB or 10% of the mean RSS, whichever is larger;
  //  - fds: below 3 (a leak of one fd per churned connection would be ~30/min);
  //  - p50 latency: below 50 ms or twice the run's median p50 - a consumer
  //    falling behind shows as latency rising with its backlog.
  std::vector<double> rss, p50;
  for (const auto& s : samples) {
    rss.push_back(s.rss_kib);
    p50.push_back(s.p50_ms);
  }
  double mean_rss = 0;
  for (double r : rss) mean_rss += r / static_cast<double>(rss.size());
  Trend rss_t = second_half_trend(
      samples, [](const Sample& s) { return s.rss_kib; }, std::max(8192.0, mean_rss * 0.10));
  Trend fd_t = second_half_trend(
      samples, [](const Sample& s) { return s.fds; }, 3);
  Trend lat_t = second_half_trend(
      samples, [](const Sample& s) { return s.p50_ms; }, std::max(50.0, 2 * median_of(p50)));
  std::cout << rss_t.describe("rss", "KiB") << "\n"
            << fd_t.describe("fds", "fds") << "\n"
            << lat_t.describe("p50 latency", "ms") << "\n"
            << "published " << load.published() << ", consumed on a " << load.consumed_a()
            << std::endl;
  EXPECT_TRUE(rss_t.ok()) << rss_t.describe("rss", "KiB");
  EXPECT_TRUE(fd_t.ok()) << fd_t.describe("fds", "fds");
  EXPECT_TRUE(lat_t.ok()) << lat_t.describe("p50 latency", "ms");
  EXPECT_TRUE(nsqd.stop()) << "no clean exit after the soak";
}

}  // namespace
}  // namespace nsq::soak
