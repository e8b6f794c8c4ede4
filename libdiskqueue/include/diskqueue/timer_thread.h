#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace nsq::diskqueue {

// One background thread that runs tasks at given times: the periodic syncs
// (fsync + meta checkpoint) of any number of disk queues, so that ten
// thousand idle queues cost one sleeping thread rather than ten thousand
// tickers; nsqd runs its message deadlines on another instance.
//
// Thread safety: every member may be called from any thread. A task runs on
// the timer's thread; cancel() returns only once that task is not running,
// so an owner that cancels before it dies is never called afterwards.
class TimerThread {
 public:
  using Clock = std::chrono::steady_clock;
  using TaskId = std::uint64_t;

  TimerThread();
  ~TimerThread();
  TimerThread(const TimerThread&) = delete;
  TimerThread& operator=(const TimerThread&) = delete;

  // Runs `task` once, at or soon after `when`.
  TaskId schedule(Clock::time_point when, std::function<void()> task);

  // Drops the task if it has not run yet; waits if it is running now.
  // Must not be called from inside a task.
  void cancel(TaskId id);

 private:
  void run();

  std::mutex mu_;
  std::condition_variable cv_;       // wakes the thread: new earliest task, or stop
  std::condition_variable done_cv_;  // wakes cancel() when a running task ends
  std::multimap<Clock::time_point, TaskId> by_time_;                             // guarded by mu_
  std::map<TaskId, std::pair<Clock::time_point, std::function<void()>>> tasks_;  // guarded by mu_
  TaskId next_id_ = 1;                                                           // guarded by mu_
  TaskId running_ = 0;  // guarded by mu_; 0 when no task runs
  bool stop_ = false;   // guarded by mu_
  std::thread thread_;
};

}  // namespace nsq::diskqueue
