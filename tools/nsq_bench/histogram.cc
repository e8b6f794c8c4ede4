#include "histogram.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace nsq::bench {

LatencyHistogram::LatencyHistogram() : counts_(kBucketCount, 0) {}

std::size_t LatencyHistogram::bucket_index(uint64_t value) noexcept {
  if (value < kExactLimit) return static_cast<std::size_t>(value);
  // value = mantissa << shift with mantissa in [128, 256): one row of 128
  // buckets per shift, placed right after the exact range.
  const int top_bit = std::bit_width(value) - 1;  // >= 8
  const int shift = top_bit - kSubBucketBits;     // >= 1
  const uint64_t mantissa = value >> shift;
  return static_cast<std::size_t>(static_cast<uint64_t>(shift) * kSubBuckets + mantissa);
}

uint64_t LatencyHistogram::bucket_lower(std::size_t index) noexcept {
  if (index < kExactLimit) return index;
  const uint64_t shift = index / kSubBuckets - 1;
  const uint64_t mantissa = index - shift * kSubBuckets;
  return mantissa << shift;
}

uint64_t LatencyHistogram::bucket_upper(std::size_t index) noexcept {
  if (index < kExactLimit) return index;
  const uint64_t shift = index / kSubBuckets - 1;
  // lower + width - 1 rather than (mantissa + 1) << shift, which overflows
  // for the last bucket.
  return bucket_lower(index) + ((uint64_t{1} << shift) - 1);
}

void LatencyHistogram::record(uint64_t value) {
  const std::size_t i = bucket_index(value);
  assert(i < counts_.size());
  ++counts_[i];
  ++count_;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  sum_ += static_cast<double>(value);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

uint64_t LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // The epsilon keeps 99.9 % of 1000 at rank 999: in binary 99.9 / 100 * 1000
  // comes out a hair above 999 and ceil would make it 1000.
  const double exact = p / 100.0 * static_cast<double>(count_);
  auto rank = static_cast<uint64_t>(std::ceil(exact - exact * 1e-12));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(bucket_upper(i), min_, max_);
  }
  return max_;  // unreachable: the counts add up to count_
}

}  // namespace nsq::bench
