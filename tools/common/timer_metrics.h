#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

// bitly/timer_metrics as nsq_to_nsq and nsq_to_http use it: collect the
// duration of every publish/request and, every `status_every` of them, log
// "<prefix> finished <N> - 99th: 1.23ms - 95th: 0.98ms - avg: 0.50ms".
namespace nsq::tools {

// @par Thread Safety: status() may be called from any thread (one mutex).
class TimerMetrics {
 public:
  using Clock = std::chrono::steady_clock;

  // status_every 0 disables it (nothing is kept or logged).
  TimerMetrics(int status_every, std::string prefix);

  // Records now - start; logs and starts over after status_every records.
  void status(Clock::time_point start);

  // The line logged for these timings (sorted in place); for tests.
  static std::string format_report(const std::string& prefix,
                                   std::vector<Clock::duration>& timings);

 private:
  const int status_every_;
  const std::string prefix_;
  std::mutex mu_;
  std::vector<Clock::duration> timings_;  // guarded by mu_
};

}  // namespace nsq::tools
