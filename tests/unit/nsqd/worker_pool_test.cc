#include "core/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;

// A one-shot event with a bounded wait. set() notifies under the lock: a
// waiter may destroy the event as soon as it sees set_, and notifying after
// unlocking touched a destroyed condition variable (TSan caught it).
class Event {
 public:
  void set() {
    std::lock_guard lock(mu_);
    set_ = true;
    cv_.notify_all();
  }
  bool wait(std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return set_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
};

TEST(WorkerPool, RunsEverySubmittedJob) {
  std::atomic<int> done{0};
  Event all;
  {
    WorkerPool pool(3);
    for (int i = 0; i < 1000; ++i) {
      pool.submit([&] {
        if (done.fetch_add(1) + 1 == 1000) all.set();
      });
    }
    EXPECT_TRUE(all.wait());
  }
  EXPECT_EQ(done.load(), 1000);
}

// Jobs that come one at a time, each submitted by the previous one's
// completion (a publisher's round trip), are all found by a spinning pool,
// whether the spinner or a sleeping thread picks them up; and a pool idle
// in its spin still stops.
TEST(WorkerPool, IdleSpinFindsJobsSubmittedOneAtATime) {
  for (auto spin : {std::chrono::microseconds(100), std::chrono::microseconds(20000)}) {
    std::atomic<int> done{0};
    {
      WorkerPool pool(2, spin);
      for (int i = 0; i < 300; ++i) {
        Event ran;
        pool.submit([&] {
          ++done;
          ran.set();
        });
        ASSERT_TRUE(ran.wait());
        if (i % 50 == 0) std::this_thread::sleep_for(spin / 2);  // lands inside the spin
      }
    }
    EXPECT_EQ(done.load(), 300);
  }
}

TEST(WorkerPool, DestructorRunsWhatIsQueuedThenJoins) {
  std::atomic<int> done{0};
  Event release;
  {
    WorkerPool pool(1);
    pool.submit([&] { release.wait(); });  // holds the only thread
    for (int i = 0; i < 50; ++i) pool.submit([&] { ++done; });
    EXPECT_EQ(done.load(), 0);
    release.set();
  }  // ~WorkerPool
  EXPECT_EQ(done.load(), 50);
}

TEST(WorkerPool, OneThreadRunsJobsInSubmissionOrder) {
  std::vector<int> order;  // touched by the single worker only
  {
    WorkerPool pool(1);
    for (int i = 0; i < 200; ++i) pool.submit([&order, i] { order.push_back(i); });
  }
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
}

TEST(WorkerPool, ThreadsRunJobsConcurrently) {
  // Each job waits for the other: only two threads at once can finish them.
  Event a_started, b_started;
  std::atomic<bool> a_ok{false}, b_ok{false};
  {
    WorkerPool pool(2);
    pool.submit([&] {
      a_started.set();
      a_ok = b_started.wait();
    });
    pool.submit([&] {
      b_started.set();
      b_ok = a_started.wait();
    });
  }
  EXPECT_TRUE(a_ok.load());
  EXPECT_TRUE(b_ok.load());
}

TEST(WorkerPool, UsesSeveralThreads) {
  constexpr int kThreads = 4;
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::condition_variable cv;
  int arrived = 0;
  bool all_arrived = true;
  {
    WorkerPool pool(kThreads);
    for (int i = 0; i < kThreads; ++i) {
      pool.submit([&] {
        std::unique_lock lock(mu);
        ids.insert(std::this_thread::get_id());
        ++arrived;
        cv.notify_all();
        // A barrier: no thread takes a second job before all have one.
        if (!cv.wait_for(lock, 5s, [&] { return arrived == kThreads; })) all_arrived = false;
      });
    }
  }
  EXPECT_TRUE(all_arrived);
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(kThreads));
}

TEST(WorkerPool, JobsMaySubmitJobs) {
  std::atomic<int> done{0};
  Event finished;
  WorkerPool* pool_ptr = nullptr;
  std::function<void(int)> chain = [&](int left) {  // outlives the pool
    ++done;
    if (left == 0) {
      finished.set();
      return;
    }
    pool_ptr->submit([&chain, left] { chain(left - 1); });
  };
  {
    WorkerPool pool(2);
    pool_ptr = &pool;
    pool.submit([&] { chain(100); });
    EXPECT_TRUE(finished.wait());
  }
  EXPECT_EQ(done.load(), 101);
}

TEST(WorkerPool, ZeroJobsDestroysPromptly) {
  WorkerPool pool(4);
  SUCCEED();
}

}  // namespace
}  // namespace nsq::nsqd
