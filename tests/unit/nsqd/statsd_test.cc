#include "stats/statsd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;

TEST(StatsdPrefix, ExpandsLikeGo) {
  EXPECT_EQ(expand_statsd_prefix("nsq.%s", "host.example.com", 4151), "nsq.host_example_com_4151.");
  EXPECT_EQ(expand_statsd_prefix("nsq.%s.", "10.0.0.1", 4151), "nsq.10_0_0_1_4151.");
  EXPECT_EQ(expand_statsd_prefix("%s", "::1", 80), "[__1]_80.");
  EXPECT_EQ(expand_statsd_prefix("a.%s.b.%s", "h", 1), "a.h_1.b.h_1.");
  EXPECT_EQ(expand_statsd_prefix("plain", "h", 1), "plain.");
  EXPECT_EQ(expand_statsd_prefix("", "h", 1), "");
}

stats::Snapshot sample(std::uint64_t scale) {
  stats::Snapshot s;
  stats::Topic t;
  t.name = "orders";
  t.depth = 5;
  t.backend_depth = 2;
  t.message_count = 100 * scale;
  t.message_bytes = 1000 * scale;
  t.e2e.configured = true;
  t.e2e.percentiles = {{0.99, 1234.9}, {0.5, 10.0}};
  stats::Channel c;
  c.name = "arch";
  c.depth = 1;
  c.backend_depth = 0;
  c.in_flight_count = 3;
  c.deferred_count = 4;
  c.message_count = 90 * scale;
  c.requeue_count = 2 * scale;
  c.timeout_count = 1 * scale;
  c.client_count = 2;
  c.e2e = t.e2e;
  t.channels.push_back(c);
  stats::Channel e;
  e.name = "tmp#ephemeral";
  e.message_count = 7;
  t.channels.push_back(e);
  s.topics.push_back(t);
  stats::Topic eph;
  eph.name = "x#ephemeral";
  s.topics.push_back(eph);
  s.memory = stats::Memory{11, 12, 13, 14, 15, 16, 17, 18, static_cast<std::int64_t>(3 * scale)};
  return s;
}

TEST(StatsdLines, FirstPushAndDeltas) {
  StatsdConfig cfg{"nsq.h_4151.", true, false};
  const auto first = sample(1);
  const auto lines = statsd_lines(first, nullptr, cfg);
  const std::vector<std::string> expected = {
      "nsq.h_4151.topic.orders.message_count:100|c",
      "nsq.h_4151.topic.orders.message_bytes:1000|c",
      "nsq.h_4151.topic.orders.depth:5|g",
      "nsq.h_4151.topic.orders.backend_depth:2|g",
      "nsq.h_4151.topic.orders.e2e_processing_latency_99:1234|g",
      "nsq.h_4151.topic.orders.e2e_processing_latency_50:10|g",
      "nsq.h_4151.topic.orders.channel.arch.message_count:90|c",
      "nsq.h_4151.topic.orders.channel.arch.depth:1|g",
      "nsq.h_4151.topic.orders.channel.arch.backend_depth:0|g",
      "nsq.h_4151.topic.orders.channel.arch.in_flight_count:3|g",
      "nsq.h_4151.topic.orders.channel.arch.deferred_count:4|g",
      "nsq.h_4151.topic.orders.channel.arch.requeue_count:2|c",
      "nsq.h_4151.topic.orders.channel.arch.timeout_count:1|c",
      "nsq.h_4151.topic.orders.channel.arch.clients:2|g",
      "nsq.h_4151.topic.orders.channel.arch.e2e_processing_latency_99:1234|g",
      "nsq.h_4151.topic.orders.channel.arch.e2e_processing_latency_50:10|g",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.message_count:7|c",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.depth:0|g",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.backend_depth:0|g",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.in_flight_count:0|g",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.deferred_count:0|g",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.requeue_count:0|c",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.timeout_count:0|c",
      "nsq.h_4151.topic.orders.channel.tmp#ephemeral.clients:0|g",
      "nsq.h_4151.topic.x#ephemeral.message_count:0|c",
      "nsq.h_4151.topic.x#ephemeral.message_bytes:0|c",
      "nsq.h_4151.topic.x#ephemeral.depth:0|g",
      "nsq.h_4151.topic.x#ephemeral.backend_depth:0|g",
      "nsq.h_4151.mem.heap_objects:11|g",
      "nsq.h_4151.mem.heap_idle_bytes:12|g",
      "nsq.h_4151.mem.heap_in_use_bytes:13|g",
      "nsq.h_4151.mem.heap_released_bytes:14|g",
      "nsq.h_4151.mem.gc_pause_usec_100:15|g",
      "nsq.h_4151.mem.gc_pause_usec_99:16|g",
      "nsq.h_4151.mem.gc_pause_usec_95:17|g",
      "nsq.h_4151.mem.next_gc_bytes:18|g",
      "nsq.h_4151.mem.gc_runs:3|c",
  };
  EXPECT_EQ(lines, expected);

  // Second push: counters are deltas, gauges are values.
  const auto second = sample(3);
  const auto next = statsd_lines(second, &first, cfg);
  EXPECT_EQ(next[0], "nsq.h_4151.topic.orders.message_count:200|c");
  EXPECT_EQ(next[1], "nsq.h_4151.topic.orders.message_bytes:2000|c");
  EXPECT_EQ(next[2], "nsq.h_4151.topic.orders.depth:5|g");
  EXPECT_EQ(next[6], "nsq.h_4151.topic.orders.channel.arch.message_count:180|c");
  EXPECT_EQ(next[11], "nsq.h_4151.topic.orders.channel.arch.requeue_count:4|c");
  EXPECT_EQ(next[12], "nsq.h_4151.topic.orders.channel.arch.timeout_count:2|c");
  EXPECT_EQ(next[16], "nsq.h_4151.topic.orders.channel.tmp#ephemeral.message_count:0|c");
  EXPECT_EQ(next.back(), "nsq.h_4151.mem.gc_runs:6|c");

  // A counter that went backwards (topic deleted and recreated) wraps to a
  // negative delta, as Go's int64(uint64 diff) does.
  const auto back = statsd_lines(first, &second, cfg);
  EXPECT_EQ(back[0], "nsq.h_4151.topic.orders.message_count:-200|c");
}

TEST(StatsdLines, ExcludeEphemeralNoMemAndNoPrefix) {
  StatsdConfig cfg{"", false, true};
  const auto lines = statsd_lines(sample(1), nullptr, cfg);
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("ephemeral"), std::string::npos) << l;
    EXPECT_EQ(l.find("mem."), std::string::npos) << l;
  }
  EXPECT_EQ(lines.size(), 16u);
  EXPECT_EQ(lines.front(), "topic.orders.message_count:100|c");
}

TEST(StatsdLines, PercentileNamesRoundLikeGo) {
  stats::Snapshot s;
  stats::Topic t;
  t.name = "t";
  t.e2e.configured = true;
  t.e2e.percentiles = {{1.0, 1.0}, {0.999, 2.0}, {0.995, 3.0}, {0.125, 4.0}, {0.0001, 5.0}};
  s.topics.push_back(t);
  const auto lines = statsd_lines(s, nullptr, {"", false, false});
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines[4], "topic.t.e2e_processing_latency_100:1|g");
  EXPECT_EQ(lines[5], "topic.t.e2e_processing_latency_100:2|g");  // 99.9 rounds up
  EXPECT_EQ(lines[6], "topic.t.e2e_processing_latency_100:3|g");  // 0.995*100 == 99.5: to even
  EXPECT_EQ(lines[7], "topic.t.e2e_processing_latency_12:4|g");   // 12.5: half to even
  EXPECT_EQ(lines[8], "topic.t.e2e_processing_latency_0:5|g");
}

TEST(StatsdPackets, PacksWholeLines) {
  EXPECT_TRUE(pack_statsd_packets({}, 508).empty());
  const std::vector<std::string> lines = {"aaaa", "bbbb", "cccc", std::string(20, 'x'), "dd"};
  // Each line costs its length + 1 ('\n').
  const auto p = pack_statsd_packets(lines, 10);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], "aaaa\nbbbb\n");  // exactly 10
  EXPECT_EQ(p[1], "cccc\n");
  EXPECT_EQ(p[2], std::string(20, 'x') + "\n");  // oversized line alone
  EXPECT_EQ(p[3], "dd\n");
  const auto one = pack_statsd_packets(lines, 1000);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], "aaaa\nbbbb\ncccc\n" + std::string(20, 'x') + "\ndd\n");
  // Invariant on realistic lines: concatenation preserved, size respected.
  const auto real = statsd_lines(sample(1), nullptr, {"nsq.host_4151.", true, false});
  const auto packets = pack_statsd_packets(real, 508);
  std::string joined, concat;
  for (const auto& l : real) joined += l + "\n";
  for (const auto& pk : packets) {
    EXPECT_LE(pk.size(), 508u);
    EXPECT_EQ(pk.back(), '\n');
    concat += pk;
  }
  EXPECT_EQ(concat, joined);
  EXPECT_GT(packets.size(), 1u);
}

// A UDP socket bound to 127.0.0.1 on an ephemeral port.
class UdpReceiver {
 public:
  UdpReceiver() {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~UdpReceiver() { ::close(fd_); }
  int port() const { return port_; }

  // The next datagram, or nullopt after timeout.
  std::optional<std::string> receive(std::chrono::milliseconds timeout) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return std::nullopt;
    char buf[65536];
    const auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0) return std::nullopt;
    return std::string(buf, static_cast<std::size_t>(n));
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(StatsdSender, SendsDeltasOverUdp) {
  UdpReceiver rx;
  std::atomic<std::uint64_t> calls{0};
  StatsdSender::Options o;
  o.address = "127.0.0.1:" + std::to_string(rx.port());
  o.interval = 100ms;
  o.packet_size = 508;
  o.config = {"nsq.test.", false, true};
  StatsdSender sender(o, [&calls] { return sample(++calls); });
  sender.start();

  // First push: the full counts, in packets of whole lines.
  std::string first;
  constexpr std::string_view kLast = "channel.arch.e2e_processing_latency_50:10|g\n";
  while (first.find(kLast) == std::string::npos) {
    auto d = rx.receive(5s);
    ASSERT_TRUE(d.has_value()) << "no statsd packet; got so far: " << first;
    EXPECT_LE(d->size(), 508u);
    EXPECT_EQ(d->back(), '\n');
    first += *d;
  }
  EXPECT_EQ(first.rfind("nsq.test.topic.orders.message_count:100|c\n", 0), 0u) << first;
  EXPECT_NE(first.find("nsq.test.topic.orders.channel.arch.message_count:90|c\n"),
            std::string::npos);

  // Second push: deltas against the first (scale 2 - scale 1).
  std::string second;
  while (second.find(kLast) == std::string::npos) {
    auto d = rx.receive(5s);
    ASSERT_TRUE(d.has_value());
    second += *d;
  }
  EXPECT_EQ(second.rfind("nsq.test.topic.orders.message_count:100|c\n", 0), 0u) << second;
  EXPECT_NE(second.find("nsq.test.topic.orders.channel.arch.requeue_count:2|c\n"),
            std::string::npos);

  sender.stop();
  EXPECT_GE(sender.pushes(), 2u);
  const auto after = calls.load();
  std::this_thread::sleep_for(250ms);
  EXPECT_EQ(calls.load(), after);  // the thread is gone
}

TEST(StatsdSender, SpreadsPacketsOverIntervalMinusOneSecond) {
  UdpReceiver rx;
  StatsdSender::Options o;
  o.address = "127.0.0.1:" + std::to_string(rx.port());
  o.interval = 1400ms;  // spread over 400 ms
  o.packet_size = 30;   // one line per packet
  o.config = {"", false, false};
  StatsdSender sender(o, [] {
    stats::Snapshot s;
    for (int i = 0; i < 4; ++i) {
      stats::Topic t;
      t.name = "t" + std::to_string(i);
      s.topics.push_back(t);
    }
    return s;
  });
  sender.start();
  std::vector<std::chrono::steady_clock::time_point> at;
  while (at.size() < 16) {  // 4 lines per topic
    auto d = rx.receive(5s);
    ASSERT_TRUE(d.has_value()) << at.size();
    at.push_back(std::chrono::steady_clock::now());
  }
  sender.stop();
  // 16 packets 25 ms apart: the last arrives ~375 ms after the first.
  EXPECT_GE(at.back() - at.front(), 300ms);
  EXPECT_LT(at.back() - at.front(), 1000ms);
}

TEST(StatsdSender, StopIsPromptAndBadAddressIsSurvivable) {
  StatsdSender::Options o;
  o.address = "no-port-here";
  o.interval = 50ms;
  std::atomic<int> calls{0};
  StatsdSender sender(o, [&calls] {
    ++calls;
    return stats::Snapshot{};
  });
  sender.start();
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(calls.load(), 0);  // no socket, no snapshot (Go skips the push)
  EXPECT_EQ(sender.pushes(), 0u);
  const auto t0 = std::chrono::steady_clock::now();
  sender.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms);

  StatsdSender::Options slow;
  slow.address = "127.0.0.1:9";
  slow.interval = 1h;
  StatsdSender idle(slow, [] { return stats::Snapshot{}; });
  idle.start();
  const auto t1 = std::chrono::steady_clock::now();
  idle.stop();
  idle.stop();  // idempotent
  EXPECT_LT(std::chrono::steady_clock::now() - t1, 500ms);
}

}  // namespace
}  // namespace nsq::nsqd
