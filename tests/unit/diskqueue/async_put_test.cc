// DiskQueue::put_batch_async: callbacks, order, grouping, close, refusal.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "diskqueue/disk_queue.h"
#include "diskqueue/errc.h"
#include "testutil/temp_dir.h"
#include "testutil/thread_executor.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

Options options(const TempDir& dir, std::function<void(std::function<void()>)> executor) {
  Options o;
  o.name = "async";
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 1024;
  o.max_bytes_per_file = 16 * 1024;  // groups cross segments
  o.executor = std::move(executor);
  return o;
}

// Counts callbacks and lets a test wait for a number of them.
class Completions {
 public:
  PutCallback callback() {
    return [this](std::error_code ec) {
      std::lock_guard lock(mu_);
      ++count_;
      if (ec) ++errors_;
      cv_.notify_all();
    };
  }
  void wait_for(int n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return count_ >= n; });
  }
  int count() {
    std::lock_guard lock(mu_);
    return count_;
  }
  int errors() {
    std::lock_guard lock(mu_);
    return errors_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
  int errors_ = 0;
};

std::vector<std::string> one(std::string r) { return {std::move(r)}; }

TEST(AsyncPut, RecordsArriveInPutOrderAcrossSegments) {
  TempDir dir;
  testutil::ThreadExecutor pool(2);
  auto q = DiskQueue::open(options(dir, pool.executor()));
  ASSERT_TRUE(q);
  Completions done;
  constexpr int kPuts = 2000;
  for (int i = 0; i < kPuts; ++i) {
    std::vector<std::string> records{"a" + std::to_string(i), "b" + std::to_string(i)};
    ASSERT_FALSE((*q)->put_batch_async(std::move(records), Durability::written, done.callback()));
  }
  done.wait_for(kPuts);
  EXPECT_EQ(done.errors(), 0);
  EXPECT_EQ((*q)->depth(), 2 * kPuts);
  for (int i = 0; i < kPuts; ++i) {
    ASSERT_EQ((*q)->try_read(), "a" + std::to_string(i));
    ASSERT_EQ((*q)->try_read(), "b" + std::to_string(i));
  }
  EXPECT_GE((*q)->positions().write_file_num, 2);  // crossed segments
}

// Publishers that wait for each acknowledgement before the next put, as
// single-message publishers under --sync-publish do: every record is there,
// each publisher's in its own order, and the queue reopens with all of them.
TEST(AsyncPut, ConcurrentDurablePublishersAllLandInOrder) {
  TempDir dir;
  constexpr int kPublishers = 16, kEach = 150;
  {
    testutil::ThreadExecutor pool(4);
    auto q = DiskQueue::open(options(dir, pool.executor()));
    ASSERT_TRUE(q);
    std::vector<std::thread> publishers;
    std::atomic<int> failures{0};
    for (int p = 0; p < kPublishers; ++p) {
      publishers.emplace_back([&, p] {
        for (int i = 0; i < kEach; ++i) {
          std::promise<std::error_code> acked;
          auto ec = (*q)->put_batch_async(one(std::to_string(p) + ":" + std::to_string(i)),
                                          Durability::fsync,
                                          [&acked](std::error_code e) { acked.set_value(e); });
          if (ec || acked.get_future().get()) ++failures;
        }
      });
    }
    for (auto& t : publishers) t.join();
    EXPECT_EQ(failures, 0);
    ASSERT_FALSE((*q)->close());
  }
  auto q = DiskQueue::open(options(dir, nullptr));
  ASSERT_TRUE(q);
  ASSERT_EQ((*q)->depth(), kPublishers * kEach);
  std::vector<int> next(kPublishers, 0);
  while (auto r = (*q)->try_read()) {
    auto colon = r->find(':');
    int p = std::stoi(r->substr(0, colon)), i = std::stoi(r->substr(colon + 1));
    ASSERT_EQ(i, next[p]) << "publisher " << p;
    ++next[p];
  }
  for (int p = 0; p < kPublishers; ++p) EXPECT_EQ(next[p], kEach);
}

// A queue that always has puts pending must not keep an executor thread for
// good: each job writes one group and leaves the puts that arrived meanwhile
// to a new job at the back of the executor's queue. Here the executor only
// collects jobs and the test runs them one by one; each callback puts again,
// as a publisher does once acknowledged.
TEST(AsyncPut, EachJobWritesOneGroupAndQueuesTheNext) {
  TempDir dir;
  std::deque<std::function<void()>> jobs;
  auto q = DiskQueue::open(
      options(dir, [&](std::function<void()> job) { jobs.push_back(std::move(job)); }));
  ASSERT_TRUE(q);
  int acked = 0;
  std::function<void(std::error_code)> again = [&](std::error_code ec) {
    EXPECT_FALSE(ec);
    if (++acked < 5) {
      EXPECT_FALSE(
          (*q)->put_batch_async(one("r" + std::to_string(acked)), Durability::written, again));
    }
  };
  ASSERT_FALSE((*q)->put_batch_async(one("r0"), Durability::written, again));
  for (int group = 1; group <= 5; ++group) {
    ASSERT_EQ(jobs.size(), 1u) << "before group " << group;
    auto job = std::move(jobs.front());
    jobs.pop_front();
    job();
    EXPECT_EQ(acked, group) << "one job wrote more than one group";
  }
  EXPECT_TRUE(jobs.empty());
  EXPECT_EQ((*q)->depth(), 5);
}

TEST(AsyncPut, CloseFinishesPendingPutsThenRefusesNewOnes) {
  TempDir dir;
  testutil::ThreadExecutor pool(2);
  auto q = DiskQueue::open(options(dir, pool.executor()));
  ASSERT_TRUE(q);
  Completions done;
  constexpr int kPuts = 500;
  for (int i = 0; i < kPuts; ++i) {
    ASSERT_FALSE(
        (*q)->put_batch_async(one("r" + std::to_string(i)), Durability::fsync, done.callback()));
  }
  ASSERT_FALSE((*q)->close());
  // close() returned only after every accepted put was reported.
  EXPECT_EQ(done.count(), kPuts);
  EXPECT_EQ(done.errors(), 0);
  EXPECT_EQ((*q)->put_batch_async(one("late"), Durability::written, done.callback()),
            make_error_code(errc::exiting));
  EXPECT_EQ(done.count(), kPuts);

  auto reopened = DiskQueue::open(options(dir, nullptr));
  ASSERT_TRUE(reopened);
  EXPECT_EQ((*reopened)->depth(), kPuts);
}

TEST(AsyncPut, InvalidSizesAreRefusedAtOnceWithoutACallback) {
  TempDir dir;
  testutil::ThreadExecutor pool(1);
  auto q = DiskQueue::open(options(dir, pool.executor()));
  ASSERT_TRUE(q);
  Completions done;
  std::vector<std::string> records{"fine", std::string(2000, 'x')};
  EXPECT_EQ((*q)->put_batch_async(std::move(records), Durability::written, done.callback()),
            make_error_code(errc::invalid_size));
  EXPECT_EQ((*q)->put_batch_async(one(""), Durability::written, done.callback()),
            make_error_code(errc::invalid_size));
  ASSERT_FALSE((*q)->close());
  EXPECT_EQ(done.count(), 0);
  EXPECT_EQ((*q)->depth(), 0);
}

TEST(AsyncPut, WithoutAnExecutorThePutRunsOnTheCallingThread) {
  TempDir dir;
  auto q = DiskQueue::open(options(dir, nullptr));
  ASSERT_TRUE(q);
  std::thread::id ran_on;
  std::error_code result = make_error_code(errc::exiting);
  ASSERT_FALSE((*q)->put_batch_async(one("x"), Durability::fsync, [&](std::error_code ec) {
    ran_on = std::this_thread::get_id();
    result = ec;
  }));
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_FALSE(result);
  EXPECT_EQ((*q)->try_read(), "x");
}

}  // namespace
}  // namespace nsq::diskqueue

namespace nsq::diskqueue {
namespace {

std::vector<std::string_view> views_of(const std::vector<std::string>& records) {
  return {records.begin(), records.end()};
}

TEST(TryPut, WritesAtOnceWhenNothingElseIsWriting) {
  TempDir dir;
  auto q = DiskQueue::open(options(dir, nullptr));
  ASSERT_TRUE(q);
  std::vector<std::string> records{"a", "bb"};
  ASSERT_FALSE((*q)->try_put_batch(views_of(records)));
  EXPECT_EQ((*q)->depth(), 2);
  EXPECT_EQ((*q)->try_read(), std::optional<std::string>("a"));
  EXPECT_EQ((*q)->try_read(), std::optional<std::string>("bb"));
}

TEST(TryPut, BusyBehindPendingAsyncPutsThenWritesAfterThem) {
  TempDir dir;
  std::deque<std::function<void()>> jobs;  // run by hand
  auto q = DiskQueue::open(
      options(dir, [&](std::function<void()> job) { jobs.push_back(std::move(job)); }));
  ASSERT_TRUE(q);
  Completions done;
  ASSERT_FALSE((*q)->put_batch_async({"first"}, Durability::written, done.callback()));
  std::vector<std::string> second{"second"};
  EXPECT_EQ((*q)->try_put_batch(views_of(second)), make_error_code(errc::busy));
  EXPECT_EQ((*q)->depth(), 0) << "nothing written by a refused try";
  while (!jobs.empty()) {
    auto job = std::move(jobs.front());
    jobs.pop_front();
    job();
  }
  done.wait_for(1);
  ASSERT_FALSE((*q)->try_put_batch(views_of(second)));
  EXPECT_EQ((*q)->try_read(), std::optional<std::string>("first"));
  EXPECT_EQ((*q)->try_read(), std::optional<std::string>("second"));
}

TEST(TryPut, BusyWhenTheRecordsWouldRollTheSegmentOrEveryPutIsDurable) {
  TempDir dir;
  auto o = options(dir, nullptr);
  o.max_bytes_per_file = 64;
  auto q = DiskQueue::open(o);
  ASSERT_TRUE(q);
  std::vector<std::string> fits{std::string(50, 'x')};
  std::vector<std::string> rolls{std::string(20, 'y')};
  ASSERT_FALSE((*q)->try_put_batch(views_of(fits)));
  EXPECT_EQ((*q)->try_put_batch(views_of(rolls)), make_error_code(errc::busy));
  ASSERT_FALSE((*q)->put_batch(views_of(rolls)));  // the roll's fsync is put_batch's to do
  EXPECT_EQ((*q)->depth(), 2);
  std::vector<std::string> too_big{std::string(2000, 'z')};
  EXPECT_EQ((*q)->try_put_batch(views_of(too_big)), make_error_code(errc::invalid_size));
  ASSERT_FALSE((*q)->close());
  EXPECT_EQ((*q)->try_put_batch(views_of(fits)), make_error_code(errc::exiting));

  TempDir durable_dir;
  auto d = options(durable_dir, nullptr);
  d.sync_every = 1;
  auto durable = DiskQueue::open(d);
  ASSERT_TRUE(durable);
  EXPECT_EQ((*durable)->try_put_batch(views_of(fits)), make_error_code(errc::busy));
}

}  // namespace
}  // namespace nsq::diskqueue
