#include "stats/quantile.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace nsq::nsqd {
namespace {

constexpr std::uint64_t kSub = 1u << LatencyStream::kSubBits;
constexpr std::uint64_t kMaxValue =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

}  // namespace

std::uint32_t LatencyStream::bucket_of(std::uint64_t v) noexcept {
  v = std::min(v, kMaxValue);
  if (v < kSub) return static_cast<std::uint32_t>(v);
  const int e = std::bit_width(v) - 1;  // v in [2^e, 2^(e+1)), e >= kSubBits
  const int shift = e - kSubBits;
  const std::uint64_t sub = (v >> shift) - kSub;  // 0 .. kSub-1
  return static_cast<std::uint32_t>(kSub + static_cast<std::uint64_t>(shift) * kSub + sub);
}

std::uint64_t LatencyStream::bucket_value(std::uint32_t bucket) noexcept {
  if (bucket < kSub) return bucket;
  const std::uint64_t shift = (bucket - kSub) / kSub;
  const std::uint64_t sub = (bucket - kSub) % kSub;
  const std::uint64_t low = (kSub + sub) << shift;
  const std::uint64_t width = std::uint64_t{1} << shift;
  return low + (width - 1) / 2;
}

// --- Histogram ---

void LatencyStream::Histogram::add(std::uint32_t bucket, std::uint64_t n, std::uint64_t value_min,
                                   std::uint64_t value_max) {
  if (n == 0) return;
  if (counts_.empty()) {
    base_ = bucket;
    counts_.assign(1, 0);
    min_ = value_min;
    max_ = value_max;
  } else {
    if (bucket < base_) {
      counts_.insert(counts_.begin(), base_ - bucket, 0);
      base_ = bucket;
    } else if (bucket - base_ >= counts_.size()) {
      counts_.resize(bucket - base_ + 1, 0);
    }
    min_ = std::min(min_, value_min);
    max_ = std::max(max_, value_max);
  }
  counts_[bucket - base_] += n;
  total_ += n;
}

void LatencyStream::Histogram::add(const Histogram& other) {
  if (other.total_ == 0) return;
  if (counts_.empty()) {
    *this = other;
    return;
  }
  // Extend to the union of both ranges, then add bucket by bucket.
  const std::uint32_t last = other.base_ + static_cast<std::uint32_t>(other.counts_.size()) - 1;
  if (other.base_ < base_) {
    counts_.insert(counts_.begin(), base_ - other.base_, 0);
    base_ = other.base_;
  }
  if (last - base_ >= counts_.size()) counts_.resize(last - base_ + 1, 0);
  for (std::size_t i = 0; i < other.counts_.size(); ++i) {
    counts_[other.base_ - base_ + i] += other.counts_[i];
  }
  total_ += other.total_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void LatencyStream::Histogram::clear() noexcept {
  counts_.clear();  // keeps capacity: bounded by kBuckets
  base_ = 0;
  total_ = 0;
  min_ = max_ = 0;
}

std::uint64_t LatencyStream::Histogram::query(double q) const noexcept {
  if (total_ == 0) return 0;
  // Go's CKMS answers with the sample at rank ceil(q * n) (1-based).
  auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total_)));
  rank = std::clamp<std::uint64_t>(rank, 1, total_);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const std::uint64_t v = bucket_value(base_ + static_cast<std::uint32_t>(i));
      return std::clamp(v, min_, max_);
    }
  }
  return max_;
}

// --- LatencyStream ---

LatencyStream::LatencyStream(std::vector<double> quantiles, std::chrono::nanoseconds window,
                             Clock::time_point start)
    : quantiles_(std::move(quantiles)),
      half_(std::max<Clock::duration>(std::chrono::duration_cast<Clock::duration>(window) / 2,
                                      Clock::duration(1))),
      last_move_(start) {}

int LatencyStream::live_windows(Clock::time_point now) const noexcept {
  // Go's IsDataStale is now.After(last + half): the move happens strictly after.
  if (now <= last_move_ + half_) return 2;
  if (now <= last_move_ + 2 * half_) return 1;
  return 0;
}

void LatencyStream::advance(Clock::time_point now) {
  const int live = live_windows(now);
  if (live == 2) return;
  if (live == 1) {
    current_ ^= 1;
    windows_[current_].clear();
    last_move_ += half_;
    return;
  }
  // Idle for a whole window or more: both empty; keep the half-window grid.
  windows_[0].clear();
  windows_[1].clear();
  const auto moves = (now - last_move_ - Clock::duration(1)) / half_;  // >= 2
  last_move_ += moves * half_;
  current_ ^= static_cast<int>(moves & 1);
}

void LatencyStream::record(std::int64_t latency_ns, Clock::time_point now) {
  const std::uint64_t v = latency_ns < 0 ? 0 : static_cast<std::uint64_t>(latency_ns);
  std::lock_guard lock(mu_);
  advance(now);
  windows_[current_].add(bucket_of(v), 1, v, v);
}

void LatencyStream::collect(Histogram& into, Clock::time_point now) const {
  std::lock_guard lock(mu_);
  const int live = live_windows(now);
  if (live >= 1) into.add(windows_[current_]);
  if (live == 2) into.add(windows_[current_ ^ 1]);
}

stats::Latency LatencyStream::result(const std::vector<double>& quantiles, const Histogram& h) {
  stats::Latency l;
  l.configured = true;
  l.count = h.total();
  l.percentiles.reserve(quantiles.size());
  for (const double q : quantiles) {
    l.percentiles.emplace_back(q, static_cast<double>(h.query(q)));
  }
  return l;
}

stats::Latency LatencyStream::snapshot(Clock::time_point now) const {
  Histogram h;
  collect(h, now);
  return result(quantiles_, h);
}

stats::Latency LatencyStream::merge(std::span<const LatencyStream* const> streams,
                                    Clock::time_point now) {
  Histogram h;
  const std::vector<double>* quantiles = nullptr;
  for (const LatencyStream* s : streams) {
    if (s == nullptr) continue;
    if (quantiles == nullptr) quantiles = &s->quantiles_;
    s->collect(h, now);
  }
  if (quantiles == nullptr) return {};
  return result(*quantiles, h);
}

std::size_t LatencyStream::allocated_buckets() const {
  std::lock_guard lock(mu_);
  return windows_[0].allocated() + windows_[1].allocated();
}

}  // namespace nsq::nsqd
