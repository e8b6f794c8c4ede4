#pragma once

#include <atomic>
#include <chrono>
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
//
// With `idle_spin` > 0, one thread that runs out of jobs keeps looking for
// the next one that long (yielding the core to anyone runnable) before it
// sleeps: a publisher's next disk write usually comes one client round trip
// later, and finding it this way skips waking a sleeping thread, which on a
// busy machine is where a single PUB's tail latency went. It stops spinning
// while jobs come further apart than that (a slow publisher would pay a
// spin per message for nothing).
class WorkerPool {
 public:
  explicit WorkerPool(int threads, std::chrono::microseconds idle_spin = {});
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
  const std::chrono::microseconds idle_spin_;
  std::atomic<std::size_t> queued_{0};                // jobs_.size(), readable without mu_
  std::atomic<bool> spinning_{false};                 // a thread is looking before it sleeps
  std::atomic<bool> spin_worth_{true};                // the last job came within idle_spin_
  std::chrono::steady_clock::time_point idle_since_;  // guarded by mu_: queue last went empty
  std::vector<std::thread> threads_;
};

}  // namespace nsq::nsqd
