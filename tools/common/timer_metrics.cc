#include "common/timer_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/go_log.h"

namespace nsq::tools {
namespace {

double to_ms(TimerMetrics::Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// The value at fraction p of the sorted timings (nearest rank).
TimerMetrics::Clock::duration percentile(const std::vector<TimerMetrics::Clock::duration>& sorted,
                                         double p) {
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

TimerMetrics::TimerMetrics(int status_every, std::string prefix)
    : status_every_(status_every), prefix_(std::move(prefix)) {
  if (status_every_ > 0) timings_.reserve(static_cast<std::size_t>(status_every_));
}

void TimerMetrics::status(Clock::time_point start) {
  if (status_every_ <= 0) return;
  auto took = Clock::now() - start;
  std::string line;
  {
    std::lock_guard lock(mu_);
    timings_.push_back(took);
    if (timings_.size() < static_cast<std::size_t>(status_every_)) return;
    line = format_report(prefix_, timings_);
    timings_.clear();
  }
  log_line(line);
}

std::string TimerMetrics::format_report(const std::string& prefix,
                                        std::vector<Clock::duration>& timings) {
  if (timings.empty()) return prefix + " finished 0";
  std::sort(timings.begin(), timings.end());
  Clock::duration total{};
  for (auto t : timings) total += t;
  double avg = to_ms(total) / static_cast<double>(timings.size());
  char buf[160];
  std::snprintf(buf, sizeof buf, " finished %zu - 99th: %.02fms - 95th: %.02fms - avg: %.02fms",
                timings.size(), to_ms(percentile(timings, 0.99)), to_ms(percentile(timings, 0.95)),
                avg);
  return prefix + buf;
}

}  // namespace nsq::tools
