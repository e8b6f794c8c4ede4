#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <latch>
#include <mutex>
#include <optional>
#include <string>

#include "clock.h"

namespace nsq::bench {

// What the coordinating thread (main) and the connection threads share.
// Start protocol: each connection thread connects and handshakes, then
// count_down()s ready and waits on go; main waits on ready, writes the
// start times, then counts go down, which publishes them (a latch
// synchronises like a mutex). After that main only flips the stop flags.
//
// @par Thread Safety: the latches and atomics are safe; error_ is guarded by
// mutex_; start/start_realtime_ns are written once before go opens.
class RunControl {
 public:
  explicit RunControl(std::ptrdiff_t connection_threads) : ready(connection_threads) {}

  std::latch ready;
  std::latch go{1};
  std::atomic<bool> stop_writers{false};
  std::atomic<bool> stop_readers{false};
  SteadyClock::time_point start{};
  int64_t start_realtime_ns = 0;

  // Records the first fatal error and stops everyone.
  void fail(std::string message) {
    {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::move(message);
    }
    stop_writers = true;
    stop_readers = true;
  }

  std::optional<std::string> error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  mutable std::mutex mutex_;
  std::optional<std::string> error_;
};

}  // namespace nsq::bench
