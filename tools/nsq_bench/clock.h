#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>

namespace nsq::bench {

using SteadyClock = std::chrono::steady_clock;

// CLOCK_REALTIME in ns: the clock the writer stamps bodies with and the
// reader compares against (both usually run on one host; across hosts the
// clocks must be synchronised).
inline int64_t realtime_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Open-loop send schedule for --rate: message k is due at start + k / rate.
// Due times come from the count sent so far rather than from "now", so a
// late send does not push every later one back (no coordinated omission in
// the offered load).
class Pacer {
 public:
  // messages_per_sec <= 0: no pacing, everything is due at once.
  Pacer(double messages_per_sec, SteadyClock::time_point start)
      : rate_(messages_per_sec), start_(start) {}

  bool paced() const noexcept { return rate_ > 0; }

  SteadyClock::time_point due(uint64_t messages_sent) const noexcept {
    if (rate_ <= 0) return start_;
    const double secs = static_cast<double>(messages_sent) / rate_;
    return start_ +
           std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(secs));
  }

 private:
  double rate_;
  SteadyClock::time_point start_;
};

}  // namespace nsq::bench
