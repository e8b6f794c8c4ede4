// Client faults (issue 8): thousands of idle connections, hundreds of
// consumers that never read, consumers that vanish without closing, and a
// consumer flooding RDY changes. nsqd must keep serving everyone else with
// bounded memory. These tests run alone (RUN_SERIAL): they measure nsqd's
// RSS and a consumer's rate.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "integration/fault_harness.h"

namespace nsq::integration {
namespace {

using namespace fault;

#ifdef NSQ_FAULT_SANITIZED
// Sanitized code is slower, and ASan's quarantine of freed memory (256 MiB)
// makes RSS measure the sanitizer, not nsqd: smaller loads, no RSS bounds,
// a looser rate.
constexpr int kIdle = 1000;
constexpr int kSlow = 100;
constexpr bool kCheckRss = false;
constexpr double kRateSlack = 2.0;
#else
constexpr int kIdle = 5000;
constexpr int kSlow = 500;
constexpr bool kCheckRss = true;
constexpr double kRateSlack = 1.25;
#endif

// The soft "Max open files" of a process, -1 if unknown.
long nofile_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Max open files", 0) == 0) return std::stol(line.substr(26));
  }
  return -1;
}

// A consumer socket that subscribes and then never reads: its receive
// buffer is made small before connecting, so nsqd's writes to it stall at once.
class StalledConsumer {
 public:
  bool open(int port, const std::string& topic, const std::string& channel, int rdy) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return false;
    int small = 4096;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
    std::string cmds = "  V2SUB " + topic + " " + channel + "\nRDY " + std::to_string(rdy) + "\n";
    return ::send(fd_, cmds.data(), cmds.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(cmds.size());
  }
  ~StalledConsumer() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
};

class FaultClientsTest : public NsqdTest {};

// Idle connections cost little memory each, do not disturb a working
// client, and every fd comes back when they close.
TEST_F(FaultClientsTest, ThousandsOfIdleConnections) {
  if (raise_nofile(kIdle + 1000) < static_cast<rlim_t>(kIdle + 200)) {
    GTEST_SKIP() << "RLIMIT_NOFILE hard limit below " << kIdle + 200;
  }
  // nsqd starts under the usual soft limit of 1024 and, like Go's, raises
  // it to the hard limit itself.
  rlimit saved{};
  ::getrlimit(RLIMIT_NOFILE, &saved);
  rlimit low = saved;
  low.rlim_cur = 1024;
  ::setrlimit(RLIMIT_NOFILE, &low);
  start({}, true);
  ::setrlimit(RLIMIT_NOFILE, &saved);
  ASSERT_GE(nofile_of(nsqd_->pid()), kIdle + 200)
      << "nsqd kept the soft RLIMIT_NOFILE it started with";
  publish("idle_probe", "warm-up");
  const long rss0 = rss_kib(nsqd_->pid());
  const int fd0 = fd_count(nsqd_->pid());

  auto started = Clock::now();
  std::vector<RawClient> idle(kIdle);
  for (auto& c : idle) {
    ASSERT_TRUE(c.connect(port()));
    ASSERT_TRUE(c.magic());
  }
  // (A few fds of slack: the warm-up publisher's socket may still have been
  // open when fd0 was sampled.)
  ASSERT_TRUE(eventually([&] { return fd_count(nsqd_->pid()) >= fd0 + kIdle - 4; }, 20000ms))
      << "nsqd holds " << fd_count(nsqd_->pid()) - fd0 << " of " << kIdle << " connections";
  auto connect_ms = std::chrono::duration_cast<ms>(Clock::now() - started).count();

  // A working client is served promptly beside them. (The first exchange
  // may wait behind nsqd still reading the idle clients' magic: untimed.)
  RawClient sub = consumer("idle_probe", "c", 10);
  auto m = read_message(sub);
  ASSERT_TRUE(m);
  sub.fin(m->id);
  auto t0 = Clock::now();
  publish("idle_probe", "during");
  auto m2 = read_message(sub);
  ASSERT_TRUE(m2);
  EXPECT_EQ(m2->body, "during");
  auto round_trip_ms = std::chrono::duration_cast<ms>(Clock::now() - t0).count();
  EXPECT_LT(round_trip_ms, 2000);

  const long rss1 = rss_kib(nsqd_->pid());
  const long per_conn = (rss1 - rss0) * 1024 / kIdle;
  std::cout << "[idle] connections=" << kIdle << " connect_ms=" << connect_ms
            << " rss_before_kib=" << rss0 << " rss_after_kib=" << rss1
            << " bytes_per_connection=" << per_conn << " probe_round_trip_ms=" << round_trip_ms
            << std::endl;
  // Measured ~71 KiB, of which 64 KiB is the read buffer a connection
  // allocates (and zero-fills) at its first read (client_conn.cc
  // kReadChunk); Go's nsqd holds ~32 KiB of bufio buffers plus two
  // goroutine stacks. The bound catches a regression, not that cost.
  if (kCheckRss) {
    EXPECT_LT(per_conn, 96 * 1024) << "bytes of nsqd RSS per idle connection";
  }

  idle.clear();
  EXPECT_TRUE(eventually([&] { return fd_count(nsqd_->pid()) <= fd0 + 2; }, 20000ms))
      << "fds still open after the clients closed: " << fd_count(nsqd_->pid()) - fd0;
}

// Hundreds of consumers that subscribe with a large RDY and never read: nsqd
// must not queue ever more output for them (each message times out and is
// offered again every second), and a consumer of another channel keeps up
// with the publisher.
TEST_F(FaultClientsTest, SlowConsumersDoNotGrowMemoryOrSlowOthers) {
  raise_nofile(kSlow + 1000);
  start({"--msg-timeout=1s"}, true);
  constexpr int kRate = 2000;  // messages per second
  constexpr int kSeconds = 8;
  constexpr int kTotal = kRate * kSeconds;
  const std::string body(1000, 's');

  RawClient fast = consumer("slow", "fast", 500);
  std::vector<std::unique_ptr<StalledConsumer>> stalled;
  for (int i = 0; i < kSlow; ++i) {
    stalled.push_back(std::make_unique<StalledConsumer>());
    ASSERT_TRUE(stalled.back()->open(port(), "slow", "stalled", 200));
  }
  ASSERT_TRUE(eventually([&] { return channel_clients(http_port(), "slow", "stalled") == kSlow; },
                         20000ms));
  const long rss0 = rss_kib(nsqd_->pid());

  std::atomic<long> rss_max{rss0};
  std::atomic<bool> done{false};
  std::thread sampler([&] {
    while (!done) {
      rss_max = std::max(rss_max.load(), rss_kib(nsqd_->pid()));
      std::this_thread::sleep_for(100ms);  // sampling period
    }
  });
  // Publisher: kRate/100 messages every 10 ms, paced against the clock.
  std::thread publisher([&] {
    RawClient p;
    if (!p.connect(port()) || !p.magic()) return;
    auto next = Clock::now();
    for (int sent = 0; sent < kTotal;) {
      std::vector<std::string> batch(kRate / 100, body);
      if (!p.mpub("slow", batch) || !is_response(p.read_skip_heartbeats(kReply), "OK")) return;
      sent += static_cast<int>(batch.size());
      next += 10ms;
      std::this_thread::sleep_until(next);
    }
  });
  auto started = Clock::now();
  int received = 0;
  while (received < kTotal) {
    auto r = fast.read_skip_heartbeats(5000ms);
    if (r.status != RawClient::ReadStatus::frame) break;
    auto m = testutil::to_test_message(r.frame);
    if (!m) continue;
    fast.fin(m->id);
    ++received;
  }
  double secs = std::chrono::duration<double>(Clock::now() - started).count();
  publisher.join();
  done = true;
  sampler.join();

  const long growth_kib = rss_max - rss0;
  std::cout << "[slow] stalled_consumers=" << kSlow << " published=" << kTotal
            << " fast_received=" << received << " fast_secs=" << secs
            << " fast_rate=" << received / secs << "/s rss_before_kib=" << rss0
            << " rss_max_kib=" << rss_max << " growth_kib=" << growth_kib << std::endl;
  EXPECT_EQ(received, kTotal);
  // Keeping up: the fast consumer finishes within 25% of the publishing time.
  EXPECT_LT(secs, kSeconds * kRateSlack)
      << "fast consumer rate " << received / secs << "/s for " << kRate << "/s published";
  // Legitimately held: the stalled channel's backlog (every message, 1 KB
  // each, until its memory queue overflows to disk) plus one output buffer
  // per stalled client. Unbounded output queues would add RDY (200) KB per
  // client per second of timeouts: hundreds of MB.
  const long bound_kib = kTotal * 2 + 64 * 1024;
  if (kCheckRss) {
    EXPECT_LT(growth_kib, bound_kib) << "nsqd RSS grew " << growth_kib << " KiB";
  }
}

// A consumer that takes messages and then goes silent without closing (its
// host died: no FIN, no reads, no heartbeat answers): the messages time out
// and go to another consumer, and nsqd drops the silent one after missed
// heartbeats.
TEST_F(FaultClientsTest, VanishedConsumerMessagesAreRedelivered) {
  start({}, true);
  constexpr int kCount = 10;
  RawClient gone =
      consumer("van", "c", kCount, R"({"msg_timeout":1000,"heartbeat_interval":1000})");
  for (int i = 0; i < kCount; ++i) publish("van", "v" + std::to_string(i));
  std::set<std::string> taken;
  for (int i = 0; i < kCount; ++i) {
    auto m = read_message(gone);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->attempts, 1);
    taken.insert(m->body);
  }
  // From here `gone` is silent: nothing read, nothing sent, never closed.
  auto vanished = Clock::now();
  RawClient other = consumer("van", "c", kCount);
  std::set<std::string> again;
  while (again.size() < taken.size()) {
    auto m = read_message(other, 10000ms);
    ASSERT_TRUE(m) << "redelivered " << again.size() << " of " << kCount;
    EXPECT_GE(m->attempts, 2);
    again.insert(m->body);
    other.fin(m->id);
  }
  auto redelivered_ms = std::chrono::duration_cast<ms>(Clock::now() - vanished).count();
  EXPECT_EQ(again, taken);
  EXPECT_GE(channel_stat(http_port(), "van", "c", "timeout_count"), kCount);
  // Two heartbeat intervals without a word: nsqd closes it.
  EXPECT_TRUE(eventually([&] { return channel_clients(http_port(), "van", "c") == 1; }, 10000ms))
      << "the silent consumer is still connected";
  auto dropped_ms = std::chrono::duration_cast<ms>(Clock::now() - vanished).count();
  std::cout << "[vanish] redelivered_after_ms=" << redelivered_ms
            << " dropped_after_ms=" << dropped_ms << std::endl;
}

// A consumer sending tens of thousands of RDY changes while messages flow:
// nsqd keeps up, honours the last value, and every message is delivered.
TEST_F(FaultClientsTest, RdyFloodIsHonouredAndHarmless) {
  start({}, true);
  constexpr int kCount = 2000;
  {
    RawClient p = client();
    std::vector<std::string> batch;
    for (int i = 0; i < kCount; ++i) batch.push_back("f" + std::to_string(i));
    ASSERT_TRUE(p.mpub("flood", batch));
    ASSERT_TRUE(got_response(p, "OK"));
  }
  RawClient c = consumer("flood", "c", 0);
  std::string flood;
  const char* values[] = {"RDY 1\n", "RDY 2500\n", "RDY 0\n", "RDY 7\n"};
  constexpr int kChanges = 50000;
  for (int i = 0; i < kChanges; ++i) flood += values[i % 4];
  flood += "RDY 0\n";
  auto t0 = Clock::now();
  ASSERT_TRUE(c.send_raw(flood));
  ASSERT_TRUE(c.pub("barrier_topic", "x"));
  // Until the barrier's OK, collect (and FIN) what was delivered meanwhile.
  std::set<std::string> seen;
  for (;;) {
    auto r = c.read_skip_heartbeats(20000ms);
    ASSERT_EQ(r.status, RawClient::ReadStatus::frame) << r.describe();
    if (is_response(r, "OK")) break;
    auto m = testutil::to_test_message(r.frame);
    ASSERT_TRUE(m) << r.describe();
    seen.insert(m->body);
    c.fin(m->id);
  }
  auto flood_ms = std::chrono::duration_cast<ms>(Clock::now() - t0).count();
  EXPECT_TRUE(got_nothing(c, 500ms)) << "a message after the final RDY 0";
  std::cout << "[rdy-flood] changes=" << kChanges << " processed_ms=" << flood_ms
            << " delivered_during_flood=" << seen.size() << std::endl;
  EXPECT_LT(flood_ms, 15000);

  c.rdy(500);
  auto rest = drain(c, kCount - seen.size());
  seen.insert(rest.begin(), rest.end());
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kCount));
}

}  // namespace
}  // namespace nsq::integration
