// DiskQueue throughput, beside the machine's own limits measured in the same
// run (sequential write with one final fsync; fsyncs per second), so results
// read as ratios. Files go to $TMPDIR (default /tmp).
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "diskqueue/disk_queue.h"
#include "testutil/thread_executor.h"

// Counts the fdatasync calls of this process (libdiskqueue is linked in
// statically, so its calls bind to this definition), so group-commit
// benchmarks can report how many records each fsync carried.
std::atomic<std::int64_t> g_fdatasyncs{0};
extern "C" int fdatasync(int fd) {
  g_fdatasyncs.fetch_add(1, std::memory_order_relaxed);
  return static_cast<int>(::syscall(SYS_fdatasync, fd));
}

namespace {

using nsq::diskqueue::DiskQueue;

// Thread 0 of a run samples the fsync count around its loop; the run
// reports fsyncs per second beside items per second (their quotient is the
// records per fsync).
class FsyncRate {
 public:
  explicit FsyncRate(const benchmark::State& state)
      : on_(state.thread_index() == 0),
        fsyncs_(g_fdatasyncs.load()),
        start_(std::chrono::steady_clock::now()) {}
  void report(benchmark::State& state) const {
    if (!on_) return;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    state.counters["fsyncs_per_s"] = static_cast<double>(g_fdatasyncs.load() - fsyncs_) / secs;
  }

 private:
  bool on_;
  std::int64_t fsyncs_;
  std::chrono::steady_clock::time_point start_;
};

std::filesystem::path bench_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "nsq-bench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  return pattern;
}

struct Shared {
  std::filesystem::path dir;
  nsq::testutil::ThreadExecutor pool{2};  // put_batch_async's writes (nsqd: its disk pool)
  std::unique_ptr<DiskQueue> queue;
};
Shared* g_shared = nullptr;  // set up once per run, before the threads start

void setup_queue(const benchmark::State& state) {
  g_shared = new Shared;
  g_shared->dir = bench_dir();
  nsq::diskqueue::Options o;
  o.name = "bench";
  o.data_path = g_shared->dir;
  o.max_msg_size = 1 << 20;
  o.sync_every = state.range(1);
  o.executor = g_shared->pool.executor();
  g_shared->queue = std::move(*DiskQueue::open(o));
}

void teardown_queue(const benchmark::State&) {
  g_shared->queue.reset();
  std::filesystem::remove_all(g_shared->dir);
  delete g_shared;
  g_shared = nullptr;
}

// args: record size, sync_every. Threads: concurrent writers.
void BM_Put(benchmark::State& state) {
  std::string record(static_cast<std::size_t>(state.range(0)), 'x');
  FsyncRate fsyncs(state);
  for (auto _ : state) {
    if (g_shared->queue->put(record)) state.SkipWithError("put failed");
  }
  fsyncs.report(state);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// args: record size. Durable puts (Durability::fsync) on a queue with the
// default sync_every: each put returns once its record is fsynced; threads
// share fsyncs (group commit): items_per_second / fsyncs_per_s is the group
// size reached.
void BM_PutDurable(benchmark::State& state) {
  std::string record(static_cast<std::size_t>(state.range(0)), 'x');
  FsyncRate fsyncs(state);
  for (auto _ : state) {
    if (g_shared->queue->put(record, nsq::diskqueue::Durability::fsync)) {
      state.SkipWithError("put failed");
    }
  }
  fsyncs.report(state);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// args: record size. Like BM_PutDurable, but each thread is a publisher that
// hands its record to put_batch_async and waits for the callback, as nsqd's
// connections do with --sync-publish: nobody holds a thread in the queue.
void BM_PutAsyncDurable(benchmark::State& state) {
  std::string record(static_cast<std::size_t>(state.range(0)), 'x');
  FsyncRate fsyncs(state);
  for (auto _ : state) {
    std::promise<std::error_code> acked;
    auto ec = g_shared->queue->put_batch_async({record}, nsq::diskqueue::Durability::fsync,
                                               [&](std::error_code e) { acked.set_value(e); });
    if (ec || acked.get_future().get()) state.SkipWithError("put failed");
  }
  fsyncs.report(state);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// args: record size, sync_every. One extra thread reads everything the
// writers put, concurrently; the clock stops when the reader has all.
void BM_PutRead(benchmark::State& state) {
  std::string record(static_cast<std::size_t>(state.range(0)), 'x');
  std::atomic<bool> writers_done{false};
  std::atomic<std::int64_t> written{0};
  std::int64_t read = 0;
  std::thread reader;
  if (state.thread_index() == 0) {
    reader = std::thread([&] {
      for (;;) {
        auto batch = g_shared->queue->read_batch(256, 1 << 20);
        read += static_cast<std::int64_t>(batch.size());
        if (batch.empty()) {
          if (writers_done && read >= written) break;
          g_shared->queue->wait_readable(std::chrono::milliseconds(1));
        }
      }
    });
  }
  std::int64_t mine = 0;
  for (auto _ : state) {
    if (g_shared->queue->put(record)) state.SkipWithError("put failed");
    ++mine;
  }
  written += mine;
  if (state.thread_index() == 0) {
    writers_done = true;
    reader.join();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// Machine limit 1: sequential 1 MiB writes, one fsync at the end.
void BM_MachineSequentialWrite(benchmark::State& state) {
  auto dir = bench_dir();
  std::string chunk(1 << 20, 'w');
  std::int64_t bytes = 0;
  for (auto _ : state) {
    int fd = ::open((dir / "seq").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    for (int i = 0; i < 256; ++i) {
      if (::write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size())) {
        state.SkipWithError("write failed");
      }
    }
    ::fdatasync(fd);
    ::close(fd);
    bytes += 256 << 20;
  }
  state.SetBytesProcessed(bytes);
  std::filesystem::remove_all(dir);
}

// Machine limit 3: one pwrite per record, one final fdatasync: the fastest
// any single writer can go when each put must be in the file before it
// returns (no user-space buffering across puts). A 1 KiB pwrite costs a few
// microseconds of syscall and page-cache work, so on a fast disk this floor
// sits far below sequential bandwidth. args: record payload size.
void BM_MachineRecordWrites(benchmark::State& state) {
  auto dir = bench_dir();
  std::string record(static_cast<std::size_t>(state.range(0)) + 4, 'r');
  constexpr std::int64_t kRecords = 64 * 1024;
  std::int64_t bytes = 0;
  for (auto _ : state) {
    int fd = ::open((dir / "records").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    off_t pos = 0;
    for (std::int64_t i = 0; i < kRecords; ++i) {
      if (::pwrite(fd, record.data(), record.size(), pos) != static_cast<ssize_t>(record.size())) {
        state.SkipWithError("pwrite failed");
      }
      pos += static_cast<off_t>(record.size());
    }
    ::fdatasync(fd);
    ::close(fd);
    bytes += kRecords * state.range(0);
  }
  state.SetItemsProcessed(state.iterations() * kRecords);
  state.SetBytesProcessed(bytes);
  std::filesystem::remove_all(dir);
}

// Machine limit 2: fsyncs per second after a small append.
void BM_MachineFsync(benchmark::State& state) {
  auto dir = bench_dir();
  int fd = ::open((dir / "sync").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::string block(128, 's');
  for (auto _ : state) {
    if (::write(fd, block.data(), block.size()) < 0) state.SkipWithError("write failed");
    ::fdatasync(fd);
  }
  ::close(fd);
  state.SetItemsProcessed(state.iterations());
  std::filesystem::remove_all(dir);
}

// The same, over blocks written (zeros) beforehand: what a durable append
// costs when the segment is preallocated (Options::preallocate_bytes).
void BM_MachineFsyncOverwrite(benchmark::State& state) {
  auto dir = bench_dir();
  int fd = ::open((dir / "sync").c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  const std::string zeros(1 << 20, '\0');
  std::int64_t end = 0, pos = 0;
  std::string block(128, 's');
  for (auto _ : state) {
    if (pos + static_cast<std::int64_t>(block.size()) > end) {
      if (::pwrite(fd, zeros.data(), zeros.size(), end) < 0) state.SkipWithError("fill failed");
      end += static_cast<std::int64_t>(zeros.size());
    }
    if (::pwrite(fd, block.data(), block.size(), pos) < 0) state.SkipWithError("write failed");
    pos += static_cast<std::int64_t>(block.size());
    ::fdatasync(fd);
  }
  ::close(fd);
  state.SetItemsProcessed(state.iterations());
  std::filesystem::remove_all(dir);
}

void queue_args(benchmark::internal::Benchmark* b) {
  for (int size : {100, 1024, 65536})
    for (int sync_every : {2500, 1}) b->Args({size, sync_every});
  b->ArgNames({"size", "sync_every"});
}

BENCHMARK(BM_MachineSequentialWrite)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MachineFsync)->UseRealTime();
BENCHMARK(BM_MachineFsyncOverwrite)->UseRealTime();
BENCHMARK(BM_MachineRecordWrites)
    ->Arg(1024)
    ->ArgName("size")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Put)
    ->Apply(queue_args)
    ->Setup(setup_queue)
    ->Teardown(teardown_queue)
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime();
BENCHMARK(BM_PutDurable)
    ->Args({100, 2500})
    ->Args({1024, 2500})
    ->ArgNames({"size", "sync_every"})
    ->Setup(setup_queue)
    ->Teardown(teardown_queue)
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime();
BENCHMARK(BM_PutAsyncDurable)
    ->Args({100, 2500})
    ->ArgNames({"size", "sync_every"})
    ->Setup(setup_queue)
    ->Teardown(teardown_queue)
    ->Threads(1)
    ->Threads(16)
    ->UseRealTime();
BENCHMARK(BM_PutRead)
    ->Apply(queue_args)
    ->Setup(setup_queue)
    ->Teardown(teardown_queue)
    ->Threads(1)
    ->Threads(16)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
