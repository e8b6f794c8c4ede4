#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nsq::bench {

// Log-linear histogram of non-negative integer samples (nanoseconds here), in
// the manner of HdrHistogram: values below 256 get one exact bucket each;
// above, every power of two is split into 128 equal buckets, so a reported
// value is within 1/128 (< 0.8 %) of the true one. A fixed ~58 KiB of
// counters holds any number of samples, so readers never store samples.
//
// @par Thread Safety: none; one per thread, merge() after joining.
class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;  // 128 buckets per octave
  static constexpr uint64_t kSubBuckets = 1u << kSubBucketBits;
  static constexpr uint64_t kExactLimit = 2 * kSubBuckets;  // 0..255 are exact
  static constexpr std::size_t kBucketCount = (64 - kSubBucketBits) * kSubBuckets + kSubBuckets;

  LatencyHistogram();

  void record(uint64_t value);
  void merge(const LatencyHistogram& other);

  uint64_t count() const noexcept { return count_; }
  uint64_t min() const noexcept { return count_ ? min_ : 0; }
  uint64_t max() const noexcept { return max_; }
  double mean() const noexcept { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }

  // The value at or below which p percent (0..100) of the samples lie: the
  // upper edge of the bucket holding that rank (HdrHistogram's "highest
  // equivalent value"), clamped into [min, max]. 0 when empty.
  uint64_t percentile(double p) const;

  // Bucket geometry, public for tests.
  static std::size_t bucket_index(uint64_t value) noexcept;
  static uint64_t bucket_lower(std::size_t index) noexcept;
  static uint64_t bucket_upper(std::size_t index) noexcept;

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  double sum_ = 0;  // a double: a uint64 sum of ns could overflow on long runs
};

}  // namespace nsq::bench
