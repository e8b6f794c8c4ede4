#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "histogram.h"

// Text of the results: human lines and the machine-readable RESULT line.
namespace nsq::bench {

// MB/s is MiB/s of body bytes (what NSQ's bench tools print as mb/s).
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * kMiB;

// One side of a run (publishing or consuming).
struct RoleSummary {
  int connections = 0;
  uint64_t messages = 0;
  uint64_t body_bytes = 0;
  double secs = 0;

  double messages_per_sec() const noexcept {
    return secs > 0 ? static_cast<double>(messages) / secs : 0;
  }
  double mb_per_sec() const noexcept {
    return secs > 0 ? static_cast<double>(body_bytes) / kMiB / secs : 0;
  }
};

// "writer: 2 connections, 1000000 msgs in 10.003s: 99970 msgs/s, 9.53 MB/s"
std::string role_line(std::string_view role, const RoleSummary& summary);

// "<label> (n=1000): p50=12.3us p90=... p99=... p99.9=... max=...us"
std::string percentile_line(std::string_view label, const LatencyHistogram& histogram);

// "[  3s] pub 123456 msgs/s 11.77 MB/s | sub ..." for one progress interval.
std::string progress_line(int second, double interval_secs, uint64_t published, uint64_t consumed,
                          int size, bool has_writers, bool has_readers);

// printf("%.*f"): the one number format of the report.
std::string format_fixed(double value, int decimals);

// Microseconds with one decimal, the unit of every latency figure printed.
std::string format_us(uint64_t ns);

// Builds "RESULT mode=writer msgs=... secs=..." with keys in insertion order.
class ResultLine {
 public:
  explicit ResultLine(std::string_view mode);

  ResultLine& add(std::string_view key, std::string_view value);
  ResultLine& add(std::string_view key, uint64_t value);
  ResultLine& add(std::string_view key, double value, int decimals);
  // msgs, secs, msgs_per_sec, mb_per_sec with an optional key prefix.
  ResultLine& add_role(std::string_view prefix, const RoleSummary& summary);
  // p50_us, p90_us, p99_us, p999_us, max_us with an optional key prefix;
  // nothing when the histogram is empty.
  ResultLine& add_percentiles(std::string_view prefix, const LatencyHistogram& histogram);

  const std::string& str() const noexcept { return line_; }

 private:
  std::string line_;
};

}  // namespace nsq::bench
