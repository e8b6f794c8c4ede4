#pragma once

// A small thread pool standing in for the application's disk threads in
// tests and benchmarks of DiskQueue::put_batch_async (Options::executor).
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nsq::testutil {

class ThreadExecutor {
 public:
  explicit ThreadExecutor(int threads) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
  }
  ~ThreadExecutor() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  ThreadExecutor(const ThreadExecutor&) = delete;
  ThreadExecutor& operator=(const ThreadExecutor&) = delete;

  // For Options::executor.
  std::function<void(std::function<void()>)> executor() {
    return [this](std::function<void()> job) {
      {
        std::lock_guard lock(mu_);
        jobs_.push_back(std::move(job));
      }
      cv_.notify_one();
    };
  }

 private:
  void run() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and every job ran
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace nsq::testutil
