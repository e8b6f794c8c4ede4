#pragma once

#include <chrono>

namespace nsq::tools::to_nsq {

// --rate: at most `rate` messages per second, with at most one second of
// burst saved up (the bucket holds `rate` tokens and starts with one, as
// to_nsq's balance). Time is a parameter so the arithmetic is testable.
class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  TokenBucket(int rate, Clock::time_point now);

  // How long to wait before the next message may go; zero if it may go now.
  Clock::duration wait_time(Clock::time_point now);
  // Spends one token (call once the wait is over).
  void take(Clock::time_point now);

 private:
  void refill(Clock::time_point now);

  const double rate_;
  double tokens_ = 1.0;
  Clock::time_point last_;
};

}  // namespace nsq::tools::to_nsq
