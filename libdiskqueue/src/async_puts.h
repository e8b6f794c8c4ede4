#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "diskqueue/disk_queue.h"
#include "group_commit.h"

namespace nsq::diskqueue {

// put_batch_async: puts that do not hold a thread while they wait.
//
// Callers only append to a list; one job at a time on Options::executor
// takes the whole list and writes it as a single group (one pwrite, and one
// fdatasync when any of them is durable), then reports to each caller and
// queues the next job for whatever arrived meanwhile. So the group written
// next is everything that arrived during the previous write and fsync, and
// nobody sleeps on a thread of their own: with many single-message
// publishers this is what lets one fsync carry all of them (the blocking put
// needs a thread per publisher, and as many thread wake-ups).
//
// Thread-safe. `group` must outlive it; finish() must return before it is
// destroyed.
class AsyncPuts {
 public:
  // `executor` runs the jobs (non-null).
  AsyncPuts(std::function<void(std::function<void()>)> executor, GroupCommit& group);

  // Queues `records` (sizes already checked); `done` runs once, on an
  // executor thread. errc::exiting after finish().
  std::error_code put(std::vector<std::string> records, bool durable, PutCallback done);

  // No put queued or being written (try_put_batch writes only then: the
  // queued puts' callers wait for theirs).
  bool idle();

  // Refuses new puts and waits until the queued ones are written and
  // reported (close, remove).
  void finish();

 private:
  struct Pending {
    std::vector<std::string> records;
    PutCallback done;
  };
  void run();  // the executor job

  const std::function<void(std::function<void()>)> executor_;
  GroupCommit& group_;

  // Guards the fields below; never held with the queue's other locks.
  std::mutex mu_;
  std::condition_variable cv_;  // arrivals while gathering; the job's end
  std::vector<Pending> pending_;
  bool durable_ = false;    // a pending put asked for an fsync
  bool running_ = false;    // a job is queued or running
  bool gathering_ = false;  // the job waits for more puts
  bool closed_ = false;
  std::size_t last_group_ = 0;              // puts in the recent largest durable group (decays)
  std::chrono::microseconds last_time_{0};  // and how long it took
};

}  // namespace nsq::diskqueue
