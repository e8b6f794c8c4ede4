#pragma once

// The soak's pass/fail arithmetic, kept apart from the workload so the
// criterion is written down once: a least-squares line through the samples
// of the second half of the run (the first half is warm-up: allocator pools,
// queues and socket buffers reaching their working size), extrapolated over
// that half. A leak shows as a line that keeps rising; noise around a
// plateau does not.

#include <string>
#include <vector>

namespace nsq::soak {

struct Sample {
  double t_s = 0;      // seconds since the start
  double rss_kib = 0;  // nsqd's VmRSS
  double fds = 0;      // entries of /proc/<pid>/fd
  double p50_ms = 0;   // publish-to-receive latency of the interval
  double p99_ms = 0;
  double published = 0;  // messages in the interval
  double consumed = 0;
};

// Slope (units per second) of the least-squares line through (t, y); 0 with
// fewer than two distinct times.
double slope(const std::vector<double>& t, const std::vector<double>& y);

struct Trend {
  double growth = 0;  // slope x duration of the second half, in the value's unit
  double limit = 0;
  bool ok() const { return growth <= limit; }
  std::string describe(const char* what, const char* unit) const;
};

// Growth over the second half of `samples` of the value `get` picks.
template <class Get>
Trend second_half_trend(const std::vector<Sample>& samples, Get get, double limit) {
  std::vector<double> t, y;
  for (std::size_t i = samples.size() / 2; i < samples.size(); ++i) {
    t.push_back(samples[i].t_s);
    y.push_back(get(samples[i]));
  }
  Trend tr;
  tr.limit = limit;
  if (t.size() >= 2) tr.growth = slope(t, y) * (t.back() - t.front());
  return tr;
}

}  // namespace nsq::soak
