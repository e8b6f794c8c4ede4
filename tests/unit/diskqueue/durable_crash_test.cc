// SIGKILLed children: durable puts acknowledged to the parent are all there
// after a reopen, and with manual_read_commit records read but not committed
// come back.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <future>
#include <random>
#include <set>
#include <thread>

#include "diskqueue/disk_queue.h"
#include "testutil/temp_dir.h"
#include "testutil/thread_executor.h"

namespace nsq::diskqueue {
namespace {

using testutil::TempDir;

Options options(const TempDir& dir, bool manual_commit) {
  Options o;
  o.name = "dc";
  o.data_path = dir.path();
  o.min_msg_size = 1;
  o.max_msg_size = 1 << 16;
  o.max_bytes_per_file = 64 * 1024;  // many rollovers
  o.manual_read_commit = manual_commit;
  return o;
}

// id -> a record that carries it and a checksum, so garbage is detectable.
std::string record_for(std::uint32_t id) {
  std::string body = "id=" + std::to_string(id) + ";";
  body.append(id % 500, static_cast<char>('a' + id % 26));
  std::uint32_t sum = 0;
  for (unsigned char c : body) sum = sum * 31 + c;
  return body + ";sum=" + std::to_string(sum);
}

bool parse_record(const std::string& rec, std::uint32_t& id) {
  auto semi = rec.find(';');
  if (rec.rfind("id=", 0) != 0 || semi == std::string::npos) return false;
  id = static_cast<std::uint32_t>(std::stoul(rec.substr(3, semi - 3)));
  return record_for(id) == rec;
}

// Reads 4-byte values from `fd` until `enough` says stop or the pipe closes.
template <class F>
void read_reports(int fd, F&& enough) {
  std::uint32_t v;
  while (::read(fd, &v, sizeof v) == sizeof v) {
    if (enough(v)) return;
  }
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited on its own: " << status;
}

// 8 threads in the child put durably (queue default sync_every, so only
// Durability::fsync makes them wait for the disk) and report each
// acknowledged id; the parent kills the child after a random number of acks.
// async: put_batch_async, each thread waiting for its callback.
// preallocate: the child's queue zero-fills ahead (Options::preallocate_bytes);
// the reopened one must cut the zeros, not take them for a bad segment.
void durable_put_round(std::uint32_t seed, bool async, bool preallocate = false) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  constexpr std::uint32_t kThreads = 8;
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    testutil::ThreadExecutor pool(2);
    Options o = options(dir, false);
    if (async) o.executor = pool.executor();
    if (preallocate) o.preallocate_bytes = 16 * 1024;
    auto q = DiskQueue::open(std::move(o));
    if (!q) ::_exit(3);
    auto put = [&](std::uint32_t id) {
      if (!async) return (*q)->put(record_for(id), Durability::fsync);
      std::promise<std::error_code> acked;
      std::vector<std::string> records{record_for(id)};
      if (auto ec = (*q)->put_batch_async(std::move(records), Durability::fsync,
                                          [&](std::error_code e) { acked.set_value(e); })) {
        return ec;
      }
      return acked.get_future().get();
    };
    std::vector<std::thread> threads;
    for (std::uint32_t t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (std::uint32_t i = 0;; ++i) {
          std::uint32_t id = (t << 24) | i;
          if (put(id)) ::_exit(4);
          // 4-byte pipe writes are atomic: reports never interleave.
          if (::write(fds[1], &id, sizeof id) != sizeof id) ::_exit(5);
        }
      });
    }
    for (auto& t : threads) t.join();
    ::_exit(0);
  }
  ::close(fds[1]);
  std::mt19937 rng(seed);
  std::size_t kill_after = 50 + rng() % 1500;
  std::set<std::uint32_t> acked;
  read_reports(fds[0], [&](std::uint32_t id) {
    acked.insert(id);
    return acked.size() >= kill_after;
  });
  ASSERT_GE(acked.size(), kill_after) << "child died early";
  kill_and_reap(pid);
  read_reports(fds[0], [&](std::uint32_t id) {
    acked.insert(id);
    return false;
  });
  ::close(fds[0]);

  auto q = DiskQueue::open(options(dir, false));
  ASSERT_TRUE(q);
  std::int64_t depth = (*q)->depth();
  std::set<std::uint32_t> found;
  std::vector<std::uint32_t> next(kThreads, 0);
  while (auto r = (*q)->try_read()) {
    std::uint32_t id;
    ASSERT_TRUE(parse_record(*r, id)) << "garbage record of " << r->size() << " bytes";
    std::uint32_t t = id >> 24, i = id & 0xffffff;
    ASSERT_LT(t, kThreads);
    ASSERT_EQ(i, next[t]) << "gap or reorder in thread " << t;
    next[t] = i + 1;
    found.insert(id);
  }
  EXPECT_EQ(static_cast<std::int64_t>(found.size()), depth) << "depth is exact after recovery";
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_NE(e.path().extension(), ".bad") << e.path() << ": no segment was found bad";
  }
  for (std::uint32_t id : acked) {
    ASSERT_TRUE(found.count(id)) << "acknowledged record lost: thread " << (id >> 24) << " #"
                                 << (id & 0xffffff);
  }
}

TEST(DurableCrash, SigkillLosesNoDurablyAcknowledgedPut) {
  for (std::uint32_t round = 0; round < 6; ++round) durable_put_round(round * 7919 + 1, false);
}

TEST(DurableCrash, SigkillLosesNoDurablyAcknowledgedAsyncPut) {
  for (std::uint32_t round = 0; round < 6; ++round) durable_put_round(round * 7919 + 5, true);
}

TEST(DurableCrash, SigkillLosesNoDurablyAcknowledgedPreallocatedPut) {
  for (std::uint32_t round = 0; round < 6; ++round) {
    durable_put_round(round * 7919 + 3, round % 2 == 0, true);
  }
}

// Reports from the manual-commit child: kind in the top byte, index below.
constexpr std::uint32_t kIntent = 1u << 24;  // about to commit records < index
constexpr std::uint32_t kSynced = 2u << 24;  // records < index committed and synced
constexpr std::uint32_t kPut = 3u << 24;     // records < index put durably

// The child puts records 0, 1, ... durably, reads a few behind, commits
// some of what it read (not all), sometimes syncs, and reports each step.
// After the kill: reading starts no later than the last commit it announced
// and no earlier than the last synced one, and nothing put is missing.
void manual_commit_round(std::uint32_t seed) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    auto o = options(dir, true);
    o.sync_every = 50;
    auto q = DiskQueue::open(o);
    if (!q) ::_exit(3);
    std::mt19937 rng(seed);
    std::vector<ReadRecord> unacked;
    std::uint32_t committed = 0;  // records < committed are committed
    auto report = [&](std::uint32_t v) {
      if (::write(fds[1], &v, sizeof v) != sizeof v) ::_exit(5);
    };
    for (std::uint32_t i = 0;; ++i) {
      if ((*q)->put(record_for(i), Durability::fsync)) ::_exit(4);
      report(kPut | (i + 1));
      for (auto& r : (*q)->read_records(rng() % 3, 1 << 20)) unacked.push_back(std::move(r));
      if (!unacked.empty() && rng() % 4 == 0) {
        std::size_t n = 1 + rng() % unacked.size();
        std::uint32_t upto = committed + static_cast<std::uint32_t>(n);
        report(kIntent | upto);
        if ((*q)->commit_read(unacked[n - 1].token)) ::_exit(6);
        unacked.erase(unacked.begin(), unacked.begin() + static_cast<std::ptrdiff_t>(n));
        committed = upto;
        if (rng() % 5 == 0) {
          if ((*q)->sync()) ::_exit(7);
          report(kSynced | committed);
        }
      }
    }
  }
  ::close(fds[1]);
  std::mt19937 rng(seed);
  std::uint32_t kill_after = 50 + rng() % 400;
  std::uint32_t put = 0, intent = 0, synced = 0;
  auto take = [&](std::uint32_t v) {
    std::uint32_t kind = v & 0xff000000u, value = v & 0xffffffu;
    if (kind == kPut) put = value;
    if (kind == kIntent) intent = value;
    if (kind == kSynced) synced = value;
    return put >= kill_after;
  };
  read_reports(fds[0], take);
  ASSERT_GE(put, kill_after) << "child died early";
  kill_and_reap(pid);
  read_reports(fds[0], [&](std::uint32_t v) { return take(v), false; });
  ::close(fds[0]);

  auto q = DiskQueue::open(options(dir, true));
  ASSERT_TRUE(q);
  std::int64_t depth = (*q)->depth();
  std::optional<std::uint32_t> first, prev;
  std::int64_t count = 0;
  while (auto r = (*q)->try_read_record()) {
    std::uint32_t id;
    ASSERT_TRUE(parse_record(r->data, id)) << "garbage record";
    if (!first) first = id;
    if (prev) {
      ASSERT_EQ(id, *prev + 1) << "gap or reorder";
    }
    prev = id;
    ++count;
  }
  EXPECT_EQ(count, depth);
  if (!first) {  // everything put was committed
    EXPECT_GE(intent, put);
    return;
  }
  EXPECT_GE(*first, synced) << "a synced commit was lost";
  EXPECT_LE(*first, intent) << "a record read but not committed did not come back";
  EXPECT_GE(*prev + 1, put) << "a durable put was lost";
}

TEST(DurableCrash, SigkillBringsBackRecordsReadButNotCommitted) {
  for (std::uint32_t round = 0; round < 6; ++round) manual_commit_round(round * 104729 + 3);
}

// Nothing committed, everything read, then SIGKILL: all of it comes back.
TEST(DurableCrash, SigkillAfterReadingWithoutCommitRedeliversAll) {
  TempDir dir;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    auto o = options(dir, true);
    o.sync_every = 1;
    auto q = DiskQueue::open(o);
    if (!q) ::_exit(3);
    for (std::uint32_t i = 0; i < 300; ++i) {
      if ((*q)->put(record_for(i))) ::_exit(4);
    }
    if ((*q)->read_records(300, 1 << 30).size() != 300) ::_exit(5);
    if ((*q)->sync()) ::_exit(6);
    std::uint32_t done = 1;
    if (::write(fds[1], &done, sizeof done) != sizeof done) ::_exit(7);
    for (;;) ::pause();
  }
  ::close(fds[1]);
  std::uint32_t done = 0;
  ASSERT_EQ(::read(fds[0], &done, sizeof done), static_cast<ssize_t>(sizeof done));
  kill_and_reap(pid);
  ::close(fds[0]);
  auto q = DiskQueue::open(options(dir, true));
  ASSERT_TRUE(q);
  EXPECT_EQ((*q)->depth(), 300);
  for (std::uint32_t i = 0; i < 300; ++i) {
    auto r = (*q)->try_read();
    ASSERT_TRUE(r);
    std::uint32_t id;
    ASSERT_TRUE(parse_record(*r, id));
    ASSERT_EQ(id, i);
  }
  EXPECT_FALSE((*q)->try_read());
}

}  // namespace
}  // namespace nsq::diskqueue
