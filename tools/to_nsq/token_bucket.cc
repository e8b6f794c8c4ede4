#include "token_bucket.h"

#include <algorithm>

namespace nsq::tools::to_nsq {

TokenBucket::TokenBucket(int rate, Clock::time_point now) : rate_(rate), last_(now) {}

void TokenBucket::refill(Clock::time_point now) {
  if (now <= last_) return;
  double earned = std::chrono::duration<double>(now - last_).count() * rate_;
  tokens_ = std::min(rate_, tokens_ + earned);
  last_ = now;
}

TokenBucket::Clock::duration TokenBucket::wait_time(Clock::time_point now) {
  refill(now);
  if (tokens_ >= 1.0) return Clock::duration::zero();
  auto seconds = std::chrono::duration<double>((1.0 - tokens_) / rate_);
  return std::chrono::ceil<Clock::duration>(seconds);
}

void TokenBucket::take(Clock::time_point now) {
  refill(now);
  tokens_ -= 1.0;
}

}  // namespace nsq::tools::to_nsq
