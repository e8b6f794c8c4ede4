#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "testutil/files.h"
#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

Options make_options(const TempDir& dir, std::string name = "test") {
  Options o;
  o.name = std::move(name);
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 1 << 20;
  o.max_bytes_per_file = 1024;
  o.sync_every = 2500;
  o.sync_timeout = std::chrono::milliseconds(2000);
  return o;
}

std::unique_ptr<DiskQueue> open_queue(Options o) {
  auto q = DiskQueue::open(std::move(o));
  EXPECT_TRUE(q.has_value()) << q.error().message();
  return q ? std::move(*q) : nullptr;
}

std::string payload(int i) { return "record-" + std::to_string(i) + std::string(i % 50, 'x'); }

TEST(DiskQueue, PutThenReadInOrder) {
  TempDir dir;
  auto q = open_queue(make_options(dir));
  for (int i = 0; i < 100; ++i) ASSERT_FALSE(q->put(payload(i)));
  EXPECT_EQ(q->depth(), 100);
  for (int i = 0; i < 100; ++i) {
    auto r = q->try_read();
    ASSERT_TRUE(r.has_value()) << i;
    EXPECT_EQ(*r, payload(i));
    EXPECT_EQ(q->depth(), 99 - i);
  }
  EXPECT_FALSE(q->try_read().has_value());
}

TEST(DiskQueue, RollsOverAtMaxBytesPerFileAndDeletesReadSegments) {
  TempDir dir;
  auto o = make_options(dir);
  o.max_bytes_per_file = 100;
  auto q = open_queue(o);
  // 10 records of 4 + 46 bytes: exactly two per file.
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(q->put(std::string(46, static_cast<char>('a' + i))));
  for (int n = 0; n < 5; ++n) {
    auto path = q->segment_path(n);
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_EQ(std::filesystem::file_size(path), 100u);
  }
  EXPECT_FALSE(std::filesystem::exists(q->segment_path(5)));
  EXPECT_EQ(q->segment_path(3).filename(), "test.diskqueue.000003.dat");

  // Reading past a segment deletes it.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(q->try_read());
  EXPECT_FALSE(std::filesystem::exists(q->segment_path(0)));
  EXPECT_TRUE(std::filesystem::exists(q->segment_path(1)));
  for (int i = 3; i < 10; ++i) {
    auto r = q->try_read();
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, std::string(46, static_cast<char>('a' + i)));
  }
}

TEST(DiskQueue, RecordLargerThanSegmentGetsAFileOfItsOwn) {
  TempDir dir;
  auto o = make_options(dir);
  o.max_bytes_per_file = 100;
  auto q = open_queue(o);
  ASSERT_FALSE(q->put("small"));
  ASSERT_FALSE(q->put(std::string(500, 'L')));
  ASSERT_FALSE(q->put("after"));
  EXPECT_EQ(std::filesystem::file_size(q->segment_path(0)), 9u);
  EXPECT_EQ(std::filesystem::file_size(q->segment_path(1)), 504u);
  EXPECT_EQ(std::filesystem::file_size(q->segment_path(2)), 9u);
  EXPECT_EQ(*q->try_read(), "small");
  EXPECT_EQ(q->try_read()->size(), 500u);
  EXPECT_EQ(*q->try_read(), "after");
}

TEST(DiskQueue, RollOverAcrossManySegments) {
  TempDir dir;
  auto q = open_queue(make_options(dir));
  const int n = 20000;
  for (int i = 0; i < n; ++i) ASSERT_FALSE(q->put(payload(i)));
  EXPECT_GT(q->positions().write_file_num, 500);
  for (int i = 0; i < n; ++i) {
    auto r = q->try_read();
    ASSERT_TRUE(r) << i;
    ASSERT_EQ(*r, payload(i));
  }
  EXPECT_EQ(q->depth(), 0);
  // Only the current write segment is left.
  int segments = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path())) {
    if (e.path().string().ends_with(".dat") && e.path().string().find("meta") == std::string::npos)
      ++segments;
  }
  EXPECT_LE(segments, 1);
}

TEST(DiskQueue, RefusesRecordsOutsideTheSizeLimits) {
  TempDir dir;
  auto o = make_options(dir);
  o.min_msg_size = 4;
  o.max_msg_size = 10;
  auto q = open_queue(o);
  EXPECT_EQ(q->put("abc"), errc::invalid_size);
  EXPECT_EQ(q->put("01234567890"), errc::invalid_size);
  EXPECT_FALSE(q->put("0123456789"));
  EXPECT_EQ(q->depth(), 1);
}

TEST(DiskQueue, ReopenContinuesWhereItStopped) {
  TempDir dir;
  {
    auto q = open_queue(make_options(dir));
    for (int i = 0; i < 300; ++i) ASSERT_FALSE(q->put(payload(i)));
    for (int i = 0; i < 120; ++i) ASSERT_EQ(*q->try_read(), payload(i));
    ASSERT_FALSE(q->close());
    EXPECT_EQ(q->put("late"), errc::exiting);
  }
  {
    auto q = open_queue(make_options(dir));
    EXPECT_EQ(q->depth(), 180);
    for (int i = 300; i < 400; ++i) ASSERT_FALSE(q->put(payload(i)));
    for (int i = 120; i < 400; ++i) {
      auto r = q->try_read();
      ASSERT_TRUE(r) << i;
      ASSERT_EQ(*r, payload(i));
    }
    EXPECT_EQ(q->depth(), 0);
  }
}

TEST(DiskQueue, EmptyDropsEverythingAndKeepsWorking) {
  TempDir dir;
  auto q = open_queue(make_options(dir));
  for (int i = 0; i < 100; ++i) ASSERT_FALSE(q->put(payload(i)));
  ASSERT_TRUE(q->try_read());
  auto before = q->positions();
  ASSERT_FALSE(q->empty());
  EXPECT_EQ(q->depth(), 0);
  EXPECT_FALSE(q->try_read());
  for (std::int64_t n = before.read_file_num; n <= before.write_file_num; ++n) {
    EXPECT_FALSE(std::filesystem::exists(q->segment_path(n)));
  }
  EXPECT_FALSE(std::filesystem::exists(q->meta_path()));
  EXPECT_EQ(q->positions().write_file_num, before.write_file_num + 1);
  ASSERT_FALSE(q->put("fresh"));
  EXPECT_EQ(*q->try_read(), "fresh");
}

TEST(DiskQueue, RemoveAfterEmptyLeavesNoFiles) {
  TempDir dir;
  auto q = open_queue(make_options(dir));
  for (int i = 0; i < 50; ++i) ASSERT_FALSE(q->put(payload(i)));
  ASSERT_FALSE(q->empty());
  ASSERT_FALSE(q->remove());
  EXPECT_EQ(q->put("x"), errc::exiting);
  q.reset();
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(DiskQueue, CloseWritesTheCheckpointInGoFormat) {
  TempDir dir;
  auto o = make_options(dir);
  o.max_bytes_per_file = 100;
  auto q = open_queue(o);
  for (int i = 0; i < 5; ++i) ASSERT_FALSE(q->put(std::string(46, 'z')));
  ASSERT_TRUE(q->try_read());
  ASSERT_FALSE(q->close());
  EXPECT_EQ(testutil::read_file(dir.path() / "test.diskqueue.meta.dat"), "4\n0,50\n2,50\n");
}

TEST(DiskQueue, OpenFailsOnMissingDirectory) {
  Options o;
  o.name = "x";
  o.data_path = "/nonexistent/nsq/dir";
  auto q = DiskQueue::open(o);
  ASSERT_FALSE(q.has_value());
  EXPECT_EQ(q.error(), errc::not_a_directory);
}

TEST(DiskQueue, ReadBatchRespectsLimits) {
  TempDir dir;
  auto q = open_queue(make_options(dir));
  for (int i = 0; i < 10; ++i) ASSERT_FALSE(q->put(std::string(10, 'a')));
  EXPECT_EQ(q->read_batch(3, 1 << 20).size(), 3u);
  EXPECT_EQ(q->read_batch(100, 25).size(), 3u);  // stops once 25 bytes are reached
  EXPECT_EQ(q->read_batch(100, 1 << 20).size(), 4u);
  EXPECT_TRUE(q->read_batch(100, 1 << 20).empty());
}

TEST(DiskQueue, NotifyWhenReadableFiresOnPut) {
  TempDir dir;
  auto q = open_queue(make_options(dir));
  int fired = 0;
  q->notify_when_readable([&] { ++fired; });
  EXPECT_EQ(fired, 0);
  ASSERT_FALSE(q->put("a"));
  EXPECT_EQ(fired, 1);
  ASSERT_FALSE(q->put("b"));
  EXPECT_EQ(fired, 1);  // one-shot
  q->notify_when_readable([&] { ++fired; });
  EXPECT_EQ(fired, 2);  // data already there: fires at once
}

TEST(DiskQueue, WaitReadableWakesOnPutFromAnotherThread) {
  TempDir dir;
  auto q = open_queue(make_options(dir));
  EXPECT_FALSE(q->wait_readable(std::chrono::milliseconds(1)));
  std::thread writer([&] { ASSERT_FALSE(q->put("hello")); });
  EXPECT_TRUE(q->wait_readable(std::chrono::seconds(30)));
  writer.join();
  EXPECT_EQ(*q->try_read(), "hello");
}

TEST(DiskQueue, TimedSyncWritesTheCheckpoint) {
  TempDir dir;
  auto o = make_options(dir);
  o.sync_timeout = std::chrono::milliseconds(20);
  auto q = open_queue(o);
  ASSERT_FALSE(q->put("abc"));
  // The checkpoint appears without any further call: the scheduler ran the sync.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(q->meta_path()) && std::chrono::steady_clock::now() < deadline) {
    // The sync has no hook to await: poll the file, bounded by the deadline.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(testutil::read_file(q->meta_path()), "1\n0,0\n0,7\n");
}

TEST(DiskQueue, SyncWritesTheCheckpointOfEverythingPutBefore) {
  TempDir dir;
  auto o = make_options(dir);
  o.sync_every = 1;
  o.sync_timeout = std::chrono::hours(1);
  auto q = open_queue(o);
  ASSERT_FALSE(q->put("abc"));
  ASSERT_FALSE(q->put("de"));
  EXPECT_EQ(std::filesystem::file_size(q->segment_path(0)), 13u);
  ASSERT_FALSE(q->sync());
  EXPECT_EQ(testutil::read_file(q->meta_path()), "2\n0,0\n0,13\n");
}

TEST(DiskQueue, ReopenWithoutCloseKeepsRecordsPastTheCheckpoint) {
  TempDir dir;
  auto o = make_options(dir);
  o.sync_every = 1;
  o.sync_timeout = std::chrono::hours(1);
  {
    auto q = open_queue(o);
    ASSERT_FALSE(q->put("one"));
    ASSERT_FALSE(q->sync());
    ASSERT_FALSE(q->put("two"));
    ASSERT_FALSE(q->put("three"));
    // Leave without close: as if the process died here (remove() skips the
    // checkpoint and keeps the files).
    ASSERT_FALSE(q->remove());
  }
  auto q = open_queue(o);
  EXPECT_EQ(q->depth(), 3);
  EXPECT_EQ(*q->try_read(), "one");
  EXPECT_EQ(*q->try_read(), "two");
  EXPECT_EQ(*q->try_read(), "three");
  EXPECT_FALSE(q->try_read());
}

TEST(DiskQueue, SharedSchedulerServesManyQueues) {
  TempDir dir;
  auto scheduler = std::make_shared<TimerThread>();
  std::vector<std::unique_ptr<DiskQueue>> queues;
  for (int i = 0; i < 50; ++i) {
    auto o = make_options(dir, "q" + std::to_string(i));
    o.scheduler = scheduler;
    queues.push_back(open_queue(o));
    ASSERT_FALSE(queues.back()->put("v" + std::to_string(i)));
  }
  for (int i = 0; i < 50; ++i) EXPECT_EQ(*queues[i]->try_read(), "v" + std::to_string(i));
}

}  // namespace
}  // namespace nsq::diskqueue
