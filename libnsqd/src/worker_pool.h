#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace nsq::nsqd {

// Threads for blocking work (disk queue reads and writes, fsync), so that
// I/O threads never block on the disk. Jobs run in submission order per
// thread; several threads run at once.
class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();  // runs what is queued, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(std::function<void()> job);

  // How many jobs can run at once (a test waits for all earlier jobs by
  // occupying every thread).
  std::size_t thread_count() const noexcept { return threads_.size(); }

 private:
  void run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  bool stop_ = false;                       // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace nsq::nsqd
