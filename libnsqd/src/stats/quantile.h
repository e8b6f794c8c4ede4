#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "nsq/stats/model.h"

// End-to-end processing latency (message creation → FIN) percentiles over a
// coarse rolling window, as Go nsqd's internal/quantile keeps them: two
// windows of half --e2e-processing-latency-window-time each; every half
// window the older one is emptied and becomes the current one, so a query
// covers between half a window and a whole window of samples.
//
// Go feeds a CKMS stream; this class uses a log-linear histogram instead, so
// memory is bounded whatever the message rate: 64 linear buckets per power
// of two (relative error of a reported value < 0.8%, exact below 128 ns and
// for the minimum and maximum), allocated only over the range of values
// actually seen (at most 3712 counters per window).
//
// Thread safety: internally locked by a mutex of its own (a leaf lock, held
// only for the histogram update or copy), so record, snapshot and merge may
// run concurrently, with or without the owning channel's mutex held.
namespace nsq::nsqd {

class LatencyStream {
 public:
  using Clock = std::chrono::steady_clock;

  // quantiles as configured (each in (0,1]), reported in this order;
  // window is the whole window (Go's E2EProcessingLatencyWindowTime).
  // start begins the first half-window (tests pass a fixed time point).
  LatencyStream(std::vector<double> quantiles, std::chrono::nanoseconds window,
                Clock::time_point start = Clock::now());

  LatencyStream(const LatencyStream&) = delete;
  LatencyStream& operator=(const LatencyStream&) = delete;

  // One FIN: latency_ns = now - message timestamp (negative counts as 0).
  void record(std::int64_t latency_ns, Clock::time_point now);

  // count = samples in the live windows; one (q, value ns) per configured
  // quantile, value 0 when there are none; configured = true.
  stats::Latency snapshot(Clock::time_point now) const;

  // A topic's latency: all the streams' live windows together (Go's
  // Topic.AggregateChannelE2eProcessingLatency). Null pointers are skipped;
  // with no stream at all the result is Go's empty Result (configured false,
  // count 0), as for a topic without channels. Quantiles are the first
  // stream's. Locks one stream at a time.
  static stats::Latency merge(std::span<const LatencyStream* const> streams, Clock::time_point now);

  const std::vector<double>& quantiles() const noexcept { return quantiles_; }

  // Bucket geometry, exposed for tests.
  static constexpr int kSubBits = 6;
  static constexpr std::uint32_t kBuckets = (64 - kSubBits) * (1u << kSubBits);
  static std::uint32_t bucket_of(std::uint64_t v) noexcept;
  // The representative value reported for a bucket (its midpoint, rounded down).
  static std::uint64_t bucket_value(std::uint32_t bucket) noexcept;

  // Counters currently allocated across both windows (memory check in tests).
  std::size_t allocated_buckets() const;

 private:
  // Counts over a contiguous bucket range [base_, base_ + counts_.size()).
  class Histogram {
   public:
    void add(std::uint32_t bucket, std::uint64_t n, std::uint64_t value_min,
             std::uint64_t value_max);
    void add(const Histogram& other);
    void clear() noexcept;
    std::uint64_t total() const noexcept { return total_; }
    // The value at rank ceil(q * total) (1-based), clamped to [min, max].
    std::uint64_t query(double q) const noexcept;
    std::size_t allocated() const noexcept { return counts_.size(); }

   private:
    std::vector<std::uint64_t> counts_;
    std::uint32_t base_ = 0;
    std::uint64_t total_ = 0;
    std::uint64_t min_ = 0;
    std::uint64_t max_ = 0;
  };

  // Windows still live at now without mutating: 2 both, 1 only current_, 0 none.
  int live_windows(Clock::time_point now) const noexcept;
  void advance(Clock::time_point now);
  void collect(Histogram& into, Clock::time_point now) const;
  static stats::Latency result(const std::vector<double>& quantiles, const Histogram& h);

  const std::vector<double> quantiles_;
  const Clock::duration half_;

  mutable std::mutex mu_;
  std::array<Histogram, 2> windows_;  // guarded by mu_
  int current_ = 0;                   // guarded by mu_
  Clock::time_point last_move_;       // guarded by mu_
};

}  // namespace nsq::nsqd
