#include "stats/statsd.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>

#include <spdlog/spdlog.h>

namespace nsq::nsqd {
namespace {

bool is_ephemeral(std::string_view name) {
  constexpr std::string_view kSuffix = "#ephemeral";
  return name.size() >= kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix;
}

class LineWriter {
 public:
  LineWriter(std::vector<std::string>& out, const std::string& prefix)
      : out_(out), prefix_(prefix) {}

  void counter(std::string_view name, std::int64_t v) { line(name, v, "|c"); }
  void gauge(std::string_view name, std::int64_t v) { line(name, v, "|g"); }

 private:
  void line(std::string_view name, std::int64_t v, std::string_view type) {
    std::string l;
    l.reserve(prefix_.size() + name.size() + 24);
    l += prefix_;
    l += name;
    l += ':';
    l += std::to_string(v);
    l += type;
    out_.push_back(std::move(l));
  }

  std::vector<std::string>& out_;
  const std::string& prefix_;
};

// Go: uint64 subtraction, then int64(diff).
std::int64_t delta(std::uint64_t cur, std::uint64_t prev) {
  return static_cast<std::int64_t>(cur - prev);
}

// Go's int64(float64) for a latency value; out-of-range values saturate.
std::int64_t to_int64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

// "e2e_processing_latency_" + fmt.Sprintf("%.0f", q*100).
std::string percentile_suffix(double q) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "e2e_processing_latency_%.0f", q * 100.0);
  return buf;
}

struct Endpoint {
  std::string host;
  std::string port;
};

// Go's net.SplitHostPort, enough for a dial address.
bool split_host_port(std::string_view addr, Endpoint& ep) {
  if (!addr.empty() && addr.front() == '[') {
    const auto close = addr.find(']');
    if (close == std::string_view::npos || close + 1 >= addr.size() || addr[close + 1] != ':') {
      return false;
    }
    ep.host = addr.substr(1, close - 1);
    ep.port = addr.substr(close + 2);
    return true;
  }
  const auto colon = addr.rfind(':');
  if (colon == std::string_view::npos || addr.find(':') != colon) return false;
  ep.host = addr.substr(0, colon);
  ep.port = addr.substr(colon + 1);
  return true;
}

// A UDP socket connected to address, or -1.
int dial_udp(const std::string& address) {
  Endpoint ep;
  if (!split_host_port(address, ep) || ep.port.empty()) return -1;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(ep.host.empty() ? nullptr : ep.host.c_str(), ep.port.c_str(), &hints, &res) !=
      0) {
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(res);
  return fd;
}

}  // namespace

std::string expand_statsd_prefix(std::string_view pattern, std::string_view broadcast_address,
                                 int broadcast_http_port) {
  if (pattern.empty()) return {};
  std::string host_key;
  const bool bracket = broadcast_address.find(':') != std::string_view::npos;
  if (bracket) host_key += '[';
  host_key += broadcast_address;
  if (bracket) host_key += ']';
  host_key += ':';
  host_key += std::to_string(broadcast_http_port);
  std::replace(host_key.begin(), host_key.end(), '.', '_');
  std::replace(host_key.begin(), host_key.end(), ':', '_');

  std::string out;
  for (std::size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 2, "%s") == 0) {
      out += host_key;
      i += 2;
    } else {
      out += pattern[i++];
    }
  }
  if (out.back() != '.') out += '.';
  return out;
}

std::vector<std::string> statsd_lines(const stats::Snapshot& current,
                                      const stats::Snapshot* previous, const StatsdConfig& config) {
  std::vector<std::string> lines;
  LineWriter w(lines, config.prefix);
  std::string name;
  for (const auto& t : current.topics) {
    if (config.exclude_ephemeral && is_ephemeral(t.name)) continue;
    const stats::Topic* last = previous ? stats::find_topic(*previous, t.name) : nullptr;
    const std::string tp = "topic." + t.name + ".";
    w.counter(tp + "message_count", delta(t.message_count, last ? last->message_count : 0));
    w.counter(tp + "message_bytes", delta(t.message_bytes, last ? last->message_bytes : 0));
    w.gauge(tp + "depth", t.depth);
    w.gauge(tp + "backend_depth", t.backend_depth);
    for (const auto& [q, v] : t.e2e.percentiles) {
      w.gauge(tp + percentile_suffix(q), to_int64(v));
    }
    for (const auto& c : t.channels) {
      if (config.exclude_ephemeral && is_ephemeral(c.name)) continue;
      const stats::Channel* lc = last ? stats::find_channel(*last, c.name) : nullptr;
      const std::string cp = tp + "channel." + c.name + ".";
      w.counter(cp + "message_count", delta(c.message_count, lc ? lc->message_count : 0));
      w.gauge(cp + "depth", c.depth);
      w.gauge(cp + "backend_depth", c.backend_depth);
      w.gauge(cp + "in_flight_count", c.in_flight_count);
      w.gauge(cp + "deferred_count", c.deferred_count);
      w.counter(cp + "requeue_count", delta(c.requeue_count, lc ? lc->requeue_count : 0));
      w.counter(cp + "timeout_count", delta(c.timeout_count, lc ? lc->timeout_count : 0));
      w.gauge(cp + "clients", c.client_count);
      for (const auto& [q, v] : c.e2e.percentiles) {
        w.gauge(cp + percentile_suffix(q), to_int64(v));
      }
    }
  }
  if (config.mem_stats && current.memory) {
    const auto& m = *current.memory;
    w.gauge("mem.heap_objects", m.heap_objects);
    w.gauge("mem.heap_idle_bytes", m.heap_idle_bytes);
    w.gauge("mem.heap_in_use_bytes", m.heap_in_use_bytes);
    w.gauge("mem.heap_released_bytes", m.heap_released_bytes);
    w.gauge("mem.gc_pause_usec_100", m.gc_pause_usec_100);
    w.gauge("mem.gc_pause_usec_99", m.gc_pause_usec_99);
    w.gauge("mem.gc_pause_usec_95", m.gc_pause_usec_95);
    w.gauge("mem.next_gc_bytes", m.next_gc_bytes);
    const std::int64_t last_runs =
        previous != nullptr && previous->memory ? previous->memory->gc_total_runs : 0;
    // Go: GCTotalRuns is a uint32; the difference is taken in uint32.
    const auto runs =
        static_cast<std::uint32_t>(m.gc_total_runs) - static_cast<std::uint32_t>(last_runs);
    w.counter("mem.gc_runs", static_cast<std::int64_t>(runs));
  }
  return lines;
}

std::vector<std::string> pack_statsd_packets(const std::vector<std::string>& lines,
                                             std::size_t max_packet_size) {
  std::vector<std::string> packets;
  std::string cur;
  for (const auto& line : lines) {
    const std::size_t n = line.size() + 1;
    if (!cur.empty() && cur.size() + n > max_packet_size) {
      packets.push_back(std::move(cur));
      cur.clear();
    }
    cur += line;
    cur += '\n';
    if (cur.size() >= max_packet_size) {  // full, or a single oversized line
      packets.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) packets.push_back(std::move(cur));
  return packets;
}

// --- StatsdSender ---

StatsdSender::StatsdSender(Options options, std::function<stats::Snapshot()> snapshot)
    : options_(std::move(options)), snapshot_(std::move(snapshot)) {}

StatsdSender::~StatsdSender() { stop(); }

void StatsdSender::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void StatsdSender::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::uint64_t StatsdSender::pushes() const {
  std::lock_guard lock(mu_);
  return pushes_;
}

bool StatsdSender::wait_until(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(mu_);
  return cv_.wait_until(lock, deadline, [this] { return stopping_; });
}

void StatsdSender::run() {
  using Clock = std::chrono::steady_clock;
  const auto interval = std::max<Clock::duration>(
      std::chrono::duration_cast<Clock::duration>(options_.interval), std::chrono::milliseconds(1));
  stats::Snapshot last;
  bool have_last = false;
  auto next = Clock::now() + interval;
  while (!wait_until(next)) {
    next += interval;
    if (next < Clock::now()) next = Clock::now() + interval;  // fell behind: no burst
    const int fd = dial_udp(options_.address);
    if (fd < 0) {
      if (options_.logger) {
        options_.logger->error("failed to create UDP socket to statsd({})", options_.address);
      }
      continue;
    }
    if (options_.logger) options_.logger->info("STATSD: pushing stats to {}", options_.address);
    stats::Snapshot current = snapshot_();
    const auto lines = statsd_lines(current, have_last ? &last : nullptr, options_.config);
    last = std::move(current);
    have_last = true;
    {
      std::lock_guard lock(mu_);
      ++pushes_;
    }
    const auto packets = pack_statsd_packets(lines, options_.packet_size);
    const auto spread = interval - std::chrono::seconds(1);
    const auto gap = packets.empty() || spread <= Clock::duration::zero()
                         ? Clock::duration::zero()
                         : spread / static_cast<Clock::rep>(packets.size());
    auto at = Clock::now();
    bool stopping = false;
    for (const auto& p : packets) {
      // Send errors are ignored, as Go's SpreadWriter does.
      (void)::send(fd, p.data(), p.size(), MSG_NOSIGNAL);
      at += gap;
      if (!stopping && gap > Clock::duration::zero()) stopping = wait_until(at);
    }
    ::close(fd);
    if (stopping) break;
  }
}

}  // namespace nsq::nsqd
