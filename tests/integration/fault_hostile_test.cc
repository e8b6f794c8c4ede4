// Hostile clients (issue 23): a client that pipelines commands and never
// reads their answers, a compression bomb, a command trickled one byte at a
// time. Each is contained to its own connection: nsqd's memory stays
// bounded (RSS measured from /proc), healthy clients keep being served, and
// the hostile connection is closed within its deadline, as Go nsqd closes
// it. Run alone (RUN_SERIAL) with the other client-load faults: they
// measure nsqd's memory and a healthy client's latency.
//
// NSQD_BINARY=<Go nsqd> runs the same tests against the reference binary
// (docs/RELIABILITY.md has both sets of figures).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iostream>

#include "integration/fault_harness.h"
#include "integration/feature_harness.h"
#include "nsq/codec/deflate_stream.h"
#include "nsq/codec/snappy_stream.h"

namespace nsq::integration {
namespace {

using namespace fault;

#ifdef NSQ_FAULT_SANITIZED
// ASan's quarantine makes RSS measure the sanitizer: no RSS bounds there,
// and looser latencies.
constexpr bool kCheckRss = false;
constexpr ms kHealthyLatency{3000};
#else
constexpr bool kCheckRss = true;
constexpr ms kHealthyLatency{500};
#endif

std::string frame_identify(std::string_view json) {
  return "IDENTIFY\n" + be32(static_cast<uint32_t>(json.size())) + std::string(json);
}

// A socket that sends and never reads: a tiny receive buffer, so nsqd's
// writes to it stall at once, and a send timeout, so the sender can notice
// that nsqd closed it (EPIPE/ECONNRESET) instead of blocking for ever.
class DeafClient {
 public:
  bool open(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return false;
    int small = 4096;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    timeval tv{0, 100 * 1000};
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~DeafClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  // Sends all of `bytes` unless the peer closed; false once it did.
  bool send_all(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) {
        bytes.remove_prefix(static_cast<std::size_t>(n));
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return true;  // the peer is not reading either: try again later
      } else {
        return false;
      }
    }
    return true;
  }
  // Sends `block` again and again until the peer closes (true) or `limit`
  // passes (false).
  bool flood_until_closed(const std::string& block, ms limit) {
    auto until = Clock::now() + limit;
    while (Clock::now() < until) {
      if (!send_all(block)) return true;
    }
    return false;
  }

 private:
  int fd_ = -1;
};

// Samples a process's RSS every 50 ms; max() is the largest seen.
class RssSampler {
 public:
  explicit RssSampler(pid_t pid) : pid_(pid), before_(rss_kib(pid)), max_(before_) {
    thread_ = std::thread([this] {
      while (!done_) {
        long now = rss_kib(pid_);
        if (now > max_) max_ = now;
        std::this_thread::sleep_for(50ms);  // sampling period
      }
    });
  }
  ~RssSampler() { stop(); }
  void stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }
  long before() const { return before_; }
  long growth() const { return max_ - before_; }

 private:
  pid_t pid_;
  long before_;
  std::atomic<long> max_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// A publisher doing PUB/OK round trips in a thread: the slowest one is how
// long a healthy client waited while the hostile one was served.
class HealthyPublisher {
 public:
  explicit HealthyPublisher(int port) {
    thread_ = std::thread([this, port] {
      RawClient p;
      if (!p.connect(port) || !p.magic()) {
        failed_ = true;
        return;
      }
      while (!done_) {
        auto started = Clock::now();
        if (!p.pub("healthy", "ping") || !is_response(p.read_skip_heartbeats(kReply), "OK")) {
          failed_ = true;
          return;
        }
        auto took = std::chrono::duration_cast<ms>(Clock::now() - started);
        if (took > slowest_.load()) slowest_ = took;
        ++round_trips_;
        std::this_thread::sleep_for(10ms);  // pacing, not synchronisation
      }
    });
  }
  ~HealthyPublisher() { stop(); }
  void stop() {
    done_ = true;
    if (thread_.joinable()) thread_.join();
  }
  bool failed() const { return failed_; }
  ms slowest() const { return slowest_; }
  int round_trips() const { return round_trips_; }

 private:
  std::atomic<bool> done_{false}, failed_{false};
  std::atomic<ms> slowest_{ms(0)};
  std::atomic<int> round_trips_{0};
  std::thread thread_;
};

class FaultHostileTest : public NsqdTest {};

// A subscribed client pipelines FINs of unknown ids (each answered with a
// non-fatal E_FIN_FAILED) and never reads. Once its unsent answers reach
// the output bound nsqd stops reading it, as Go's blocking write does, and
// closes it when the write stays blocked past the heartbeat interval.
TEST_F(FaultHostileTest, FinFloodFromAClientThatNeverReadsIsBoundedAndClosed) {
  start({}, true);
  HealthyPublisher healthy(port());
  RssSampler rss(nsqd_->pid());
  DeafClient deaf;
  ASSERT_TRUE(deaf.open(port()));
  ASSERT_TRUE(
      deaf.send_all("  V2" + frame_identify(R"({"heartbeat_interval":5000})") + "SUB hostile c\n"));
  std::string block;
  for (int i = 0; i < 2000; ++i) block += "FIN 0000000000000000\n";
  auto started = Clock::now();
  bool closed = deaf.flood_until_closed(block, 30000ms);
  double secs = std::chrono::duration<double>(Clock::now() - started).count();
  rss.stop();
  healthy.stop();
  std::cout << "[fin-flood] closed=" << closed << " after_s=" << secs
            << " rss_before_kib=" << rss.before() << " growth_kib=" << rss.growth()
            << " healthy_round_trips=" << healthy.round_trips()
            << " healthy_slowest_ms=" << healthy.slowest().count() << std::endl;
  EXPECT_TRUE(closed) << "nsqd kept a client that never reads for 30 s";
  EXPECT_LT(secs, 20.0) << "a 5 s heartbeat interval is the write deadline";
  EXPECT_FALSE(healthy.failed());
  EXPECT_LT(healthy.slowest(), kHealthyLatency);
  if (kCheckRss) {
    EXPECT_LT(rss.growth(), 64 * 1024) << "KiB";
  }
}

// A producer that turns heartbeats off and never reads its OKs: bounded the
// same way, and closed once a write has been blocked for
// --max-heartbeat-interval (Go would block on it for ever).
TEST_F(FaultHostileTest, ProducerWithoutHeartbeatsThatNeverReadsIsBoundedAndClosed) {
  start({"--max-heartbeat-interval=3s", "--mem-queue-size=0"}, true);
  RssSampler rss(nsqd_->pid());
  DeafClient deaf;
  ASSERT_TRUE(deaf.open(port()));
  ASSERT_TRUE(deaf.send_all("  V2" + frame_identify(R"({"heartbeat_interval":-1})")));
  std::string block;
  for (int i = 0; i < 500; ++i) block += "PUB deaf\n" + be32(1) + "x";
  auto started = Clock::now();
  bool closed = deaf.flood_until_closed(block, 30000ms);
  double secs = std::chrono::duration<double>(Clock::now() - started).count();
  rss.stop();
  std::cout << "[deaf-producer] closed=" << closed << " after_s=" << secs
            << " rss_before_kib=" << rss.before() << " growth_kib=" << rss.growth() << std::endl;
  EXPECT_TRUE(closed) << "nsqd kept a producer that never reads for 30 s";
  // Its kernel buffers fill first (slowly under a sanitizer), then 3 s.
  EXPECT_LT(secs, 20.0) << "--max-heartbeat-interval=3s is the write deadline";
  EXPECT_TRUE(nsqd_->wait_for_log("write deadline", kReply)) << tail(nsqd_->log());
  if (kCheckRss) {
    EXPECT_LT(rss.growth(), 64 * 1024) << "KiB";
  }
}

// 16.8 MB of NOPs deflated (or snappy-compressed) to a small stream per
// connection, then a PUB: nsqd decodes in bounded steps as it parses, so a
// connection holds no more than a step of plain bytes, during or after.
class FaultCompressionBombTest : public NsqdTest,
                                 public ::testing::WithParamInterface<bool /*deflate*/> {};

TEST_P(FaultCompressionBombTest, BombsDoNotPinMemory) {
  constexpr int kConnections = 20;
  start({}, true);
  const bool deflate = GetParam();
  std::string plain;
  const std::string nop = "NOP " + std::string(1000, 'a') + "\n";
  while (plain.size() < 16'800'000) plain += nop;
  plain += "PUB bomb\n" + be32(1) + "x";
  std::string bomb;
  if (deflate) {
    codec::DeflateStreamEncoder enc(9);
    enc.encode(plain, bomb);
  } else {
    codec::SnappyStreamEncoder enc;
    enc.encode(plain, bomb);
  }
  std::cout << "[bomb] " << (deflate ? "deflate" : "snappy") << " " << bomb.size() << " bytes -> "
            << plain.size() << std::endl;

  RssSampler rss(nsqd_->pid());
  std::vector<std::unique_ptr<FeatureClient>> clients;
  for (int i = 0; i < kConnections; ++i) {
    auto c = std::make_unique<FeatureClient>();
    Upgrades u;
    u.deflate = deflate;
    u.snappy = !deflate;
    u.deflate_level = 1;
    ASSERT_FALSE(connect_upgraded(*c, port(), u).empty());
    // Fresh compressed stream from the client: the bomb is its first bytes.
    ASSERT_TRUE(c->send_under_compression(bomb));
    clients.push_back(std::move(c));
  }
  for (auto& c : clients) {
    auto ok = c->read_frame(30000ms);
    ASSERT_TRUE(ok) << "no answer to the PUB after the bomb";
    EXPECT_EQ(ok->data, "OK");
  }
  const long held = rss_kib(nsqd_->pid()) - rss.before();  // connections still open
  rss.stop();
  std::cout << "[bomb] connections=" << kConnections << " rss_before_kib=" << rss.before()
            << " growth_max_kib=" << rss.growth() << " held_after_kib=" << held << std::endl;
  if (kCheckRss) {
    EXPECT_LT(rss.growth(), kConnections * 2 * 1024) << "KiB at most, while decoding";
    EXPECT_LT(held, kConnections * 1024) << "KiB held once decoded";
  }
}

INSTANTIATE_TEST_SUITE_P(Codecs, FaultCompressionBombTest, ::testing::Values(true, false),
                         [](const auto& codec) {
                           return std::string(codec.param ? "Deflate" : "Snappy");
                         });

// A 1 MiB PUB trickled one byte every 100 ms: every byte arriving must not
// postpone the deadline. The whole command must arrive within two heartbeat
// intervals of the previous one, as in Go.
TEST_F(FaultHostileTest, TrickledCommandIsCutAfterTwoHeartbeatIntervals) {
  start({}, true);
  RawClient c;
  ASSERT_TRUE(c.connect(port()) && c.magic());
  ASSERT_TRUE(c.identify(R"({"heartbeat_interval":1000})"));
  ASSERT_TRUE(got_response(c, "OK"));
  std::string command = "PUB trickle\n" + be32(1 << 20) + std::string(1 << 20, 't');
  auto started = Clock::now();
  bool closed = false;
  for (std::size_t i = 0; i < command.size() && Clock::now() - started < 15000ms; ++i) {
    if (!c.send_raw(command.substr(i, 1)) || c.wait_closed(100ms)) {
      closed = true;
      break;
    }
  }
  double secs = std::chrono::duration<double>(Clock::now() - started).count();
  std::cout << "[trickle] closed=" << closed << " after_s=" << secs << std::endl;
  EXPECT_TRUE(closed) << "a trickled command held its connection for 15 s";
  EXPECT_LT(secs, 5.0) << "the deadline is two 1 s heartbeat intervals";
  EXPECT_TRUE(nsqd_->wait_for_log("read deadline", kReply) ||
              nsqd_->wait_for_log("i/o timeout", ms(1)))
      << tail(nsqd_->log());
}

}  // namespace
}  // namespace nsq::integration
