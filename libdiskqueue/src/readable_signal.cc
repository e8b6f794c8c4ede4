#include "readable_signal.h"

namespace nsq::diskqueue {

bool ReadableSignal::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(state_.mu);
  auto has_data = [&] { return state_.closed || state_.has_data(); };
  ++waiters_;
  bool ready = cv_.wait_for(lock, timeout, has_data);
  --waiters_;
  return ready && !state_.closed;
}

void ReadableSignal::notify_when_readable(std::function<void()> callback) {
  std::unique_lock lock(state_.mu);
  if (state_.closed) return;
  if (state_.has_data()) {
    lock.unlock();
    callback();
    return;
  }
  callback_ = std::move(callback);
}

void ReadableSignal::fire(std::unique_lock<std::mutex>& lock) {
  bool notify = waiters_ > 0;
  auto callback = std::move(callback_);
  callback_ = nullptr;
  if (!notify && !callback) return;
  lock.unlock();
  if (notify) cv_.notify_all();
  if (callback) callback();
  lock.lock();
}

void ReadableSignal::close_locked() {
  callback_ = nullptr;
  cv_.notify_all();
}

}  // namespace nsq::diskqueue
