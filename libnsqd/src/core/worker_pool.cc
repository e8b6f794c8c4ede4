#include "core/worker_pool.h"

namespace nsq::nsqd {

WorkerPool::WorkerPool(int threads, std::chrono::microseconds idle_spin)
    : idle_spin_(idle_spin), spin_worth_(idle_spin.count() > 0) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::submit(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    // Spinning pays only while jobs come back about within the spin: judge
    // by how long the queue sat empty before this one (with some slack, so
    // one late client round trip does not switch it off).
    if (jobs_.empty() && idle_spin_.count() > 0) {
      spin_worth_.store(std::chrono::steady_clock::now() - idle_since_ < 2 * idle_spin_,
                        std::memory_order_relaxed);
    }
    jobs_.push_back(std::move(job));
    queued_.store(jobs_.size(), std::memory_order_release);
  }
  cv_.notify_one();
}

void WorkerPool::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (jobs_.empty()) idle_since_ = std::chrono::steady_clock::now();
    if (jobs_.empty() && !stop_ && spin_worth_.load(std::memory_order_relaxed) &&
        !spinning_.exchange(true)) {
      lock.unlock();
      auto until = std::chrono::steady_clock::now() + idle_spin_;
      while (queued_.load(std::memory_order_acquire) == 0 &&
             std::chrono::steady_clock::now() < until) {
        std::this_thread::yield();
      }
      spinning_.store(false);
      lock.lock();
    }
    cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) return;
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    queued_.store(jobs_.size(), std::memory_order_release);
    lock.unlock();
    job();
    job = nullptr;  // what the job holds is released before the pool's lock is retaken
    lock.lock();
  }
}

}  // namespace nsq::nsqd
