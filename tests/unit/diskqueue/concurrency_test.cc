#include "diskqueue/disk_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "testutil/temp_dir.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

// Writers put "w<writer>:<seq>"; a concurrent reader checks each writer's
// records arrive in order and that the total is exact.
// durable: which writers put with Durability::fsync (by writer index).
void run_writers_and_reader(std::int64_t sync_every, int writers, int per_writer,
                            bool (*durable)(int) = nullptr) {
  TempDir dir;
  Options o;
  o.name = "conc";
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 4096;
  o.max_bytes_per_file = 256 * 1024;
  o.sync_every = sync_every;
  auto q = DiskQueue::open(o);
  ASSERT_TRUE(q);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < per_writer; ++i) {
        std::string rec =
            "w" + std::to_string(w) + ":" + std::to_string(i) + std::string(i % 300, '.');
        Durability d = durable && durable(w) ? Durability::fsync : Durability::written;
        if ((*q)->put(rec, d)) ++failures;
      }
    });
  }
  std::map<int, int> next;
  int total = 0;
  const int want = writers * per_writer;
  while (total < want) {
    auto batch = (*q)->read_batch(64, 1 << 20);
    if (batch.empty()) {
      (*q)->wait_readable(std::chrono::milliseconds(100));
      continue;
    }
    for (auto& rec : batch) {
      auto colon = rec.find(':');
      int w = std::stoi(rec.substr(1, colon - 1));
      int seq = std::stoi(rec.substr(colon + 1));
      ASSERT_EQ(seq, next[w]) << "writer " << w << " out of order";
      next[w] = seq + 1;
      ++total;
    }
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(total, want);
  EXPECT_FALSE((*q)->try_read());
  EXPECT_EQ((*q)->depth(), 0);
}

TEST(Concurrency, ManyWritersOneReaderDefaultSync) { run_writers_and_reader(2500, 8, 5000); }

TEST(Concurrency, ManyWritersGroupCommitSyncEveryOne) { run_writers_and_reader(1, 16, 100); }

TEST(Concurrency, DurableAndPlainWritersShareGroups) {
  run_writers_and_reader(2500, 16, 200, [](int w) { return w % 2 == 0; });
}

TEST(Concurrency, AllWritersDurable) {
  run_writers_and_reader(2500, 16, 150, [](int) { return true; });
}

TEST(Concurrency, EmptyWhileWritingLeavesAConsistentQueue) {
  TempDir dir;
  Options o;
  o.name = "emp";
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 100;
  o.max_bytes_per_file = 4096;
  auto q = DiskQueue::open(o);
  ASSERT_TRUE(q);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    while (!stop) (*q)->put("payload");
  });
  for (int i = 0; i < 50; ++i) {
    ASSERT_FALSE((*q)->empty());
    (*q)->read_batch(10, 1000);
  }
  stop = true;
  writer.join();
  // Whatever is left reads back cleanly and depth agrees.
  std::int64_t depth = (*q)->depth();
  std::int64_t read = 0;
  while (auto r = (*q)->try_read()) {
    ASSERT_EQ(*r, "payload");
    ++read;
  }
  EXPECT_EQ(read, depth);
}

}  // namespace
}  // namespace nsq::diskqueue
