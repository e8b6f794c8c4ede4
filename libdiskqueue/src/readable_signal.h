#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "queue_state.h"

namespace nsq::diskqueue {

// Wakes the one consumer when records arrive: wait_readable (blocking) and
// notify_when_readable (a one-shot callback an event loop posts from).
// Thread-safe; `state` must outlive it.
class ReadableSignal {
 public:
  explicit ReadableSignal(QueueState& state) : state_(state) {}

  bool wait(std::chrono::milliseconds timeout);
  void notify_when_readable(std::function<void()> callback);

  // A put published records: wakes the waiters and runs the callback.
  // `lock` holds state.mu; it is released while they run, so the reader
  // does not wake only to block on the mutex.
  void fire(std::unique_lock<std::mutex>& lock);

  // The queue closed (state.mu held): drops the callback, wakes the waiters.
  void close_locked();

 private:
  QueueState& state_;
  int waiters_ = 0;                 // guarded by state_.mu
  std::function<void()> callback_;  // guarded by state_.mu
  std::condition_variable cv_;      // waits on state_.mu: records or closed
};

}  // namespace nsq::diskqueue
