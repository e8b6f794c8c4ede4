#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "nsq/stats/model.h"

namespace spdlog {
class logger;
}

// The statsd push of Go nsqd v1.3.0 (--statsd-*): metric lines computed from
// two stats snapshots, packed into UDP packets and sent spread over the
// interval.
namespace nsq::nsqd {

struct StatsdConfig {
  // Already expanded (see expand_statsd_prefix): "" or ends with '.'.
  std::string prefix;
  bool mem_stats = true;           // --statsd-mem-stats
  bool exclude_ephemeral = false;  // --statsd-exclude-ephemeral
};

// --statsd-prefix as Go's nsqd.New expands it: every "%s" becomes
// net.JoinHostPort(broadcast_address, port) with '.' and ':' turned into '_'
// (so "[::1]:4151" gives "[__1]_4151"), and a '.' is appended if the result
// does not end in one. An empty pattern stays empty (no prefix).
std::string expand_statsd_prefix(std::string_view pattern, std::string_view broadcast_address,
                                 int broadcast_http_port);

// The lines of one push, each "<prefix><name>:<int>|c" or "|g" without the
// '\n', in Go's order: per topic message_count, message_bytes (counters),
// depth, backend_depth, e2e_processing_latency_<p>; per channel
// message_count, depth, backend_depth, in_flight_count, deferred_count,
// requeue_count, timeout_count, clients, e2e_processing_latency_<p>; then
// mem.* (gauges, gc_runs a counter) when config.mem_stats and current has
// memory. Counters are deltas against the same-named topic/channel of
// previous (its full value when there is none or previous is null), computed
// in uint64 and printed as int64 like Go (a counter that went backwards
// gives a negative delta).
std::vector<std::string> statsd_lines(const stats::Snapshot& current,
                                      const stats::Snapshot* previous, const StatsdConfig& config);

// Packets of '\n'-terminated lines (Go's BoundaryBufferedWriter): a line is
// never split; a packet holds as many whole lines as fit in
// max_packet_size bytes; a line longer than that goes alone.
std::vector<std::string> pack_statsd_packets(const std::vector<std::string>& lines,
                                             std::size_t max_packet_size);

// Pushes statsd metrics from its own thread: every interval (first push one
// interval after start), it calls snapshot(), computes the lines against the
// previous push, opens a UDP socket to address ("host:port", resolved on each
// push like Go's net.Dial) and sends the packets spread evenly over
// (interval - 1 s) (all at once when that is not positive). On stop the
// remaining packets of a push go out without waiting.
//
// Thread safety: start and stop from one owner thread; snapshot is called on
// the sender thread and must be safe to call there.
class StatsdSender {
 public:
  struct Options {
    std::string address;  // --statsd-address
    std::chrono::nanoseconds interval{std::chrono::seconds(60)};
    std::size_t packet_size = 508;
    StatsdConfig config;
    std::shared_ptr<spdlog::logger> logger;  // may be null
  };

  StatsdSender(Options options, std::function<stats::Snapshot()> snapshot);
  ~StatsdSender();  // stop()

  StatsdSender(const StatsdSender&) = delete;
  StatsdSender& operator=(const StatsdSender&) = delete;

  void start();
  // Wakes the thread and joins it. Idempotent.
  void stop();

  // Number of pushes that opened a socket (for tests and logs).
  std::uint64_t pushes() const;

 private:
  void run();
  // Waits until deadline or stop; true when stopping.
  bool wait_until(std::chrono::steady_clock::time_point deadline);

  const Options options_;
  const std::function<stats::Snapshot()> snapshot_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;     // guarded by mu_
  std::uint64_t pushes_ = 0;  // guarded by mu_
  std::thread thread_;
};

}  // namespace nsq::nsqd
