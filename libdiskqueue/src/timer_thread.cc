#include "diskqueue/timer_thread.h"

namespace nsq::diskqueue {

TimerThread::TimerThread() : thread_([this] { run(); }) {}

TimerThread::~TimerThread() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

TimerThread::TaskId TimerThread::schedule(Clock::time_point when, std::function<void()> task) {
  std::lock_guard lock(mu_);
  TaskId id = next_id_++;
  tasks_.emplace(id, std::make_pair(when, std::move(task)));
  by_time_.emplace(when, id);
  if (by_time_.begin()->second == id) cv_.notify_all();
  return id;
}

void TimerThread::cancel(TaskId id) {
  std::unique_lock lock(mu_);
  if (auto it = tasks_.find(id); it != tasks_.end()) {
    auto range = by_time_.equal_range(it->second.first);
    for (auto t = range.first; t != range.second; ++t) {
      if (t->second == id) {
        by_time_.erase(t);
        break;
      }
    }
    tasks_.erase(it);
  }
  done_cv_.wait(lock, [&] { return running_ != id; });
}

void TimerThread::run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (by_time_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = by_time_.begin();
    if (Clock::now() < first->first) {
      // A copy: cancel() may erase the node while we wait.
      Clock::time_point when = first->first;
      cv_.wait_until(lock, when);
      continue;
    }
    TaskId id = first->second;
    by_time_.erase(first);
    auto node = tasks_.extract(id);
    running_ = id;
    lock.unlock();
    node.mapped().second();
    lock.lock();
    running_ = 0;
    done_cv_.notify_all();
  }
}

}  // namespace nsq::diskqueue
