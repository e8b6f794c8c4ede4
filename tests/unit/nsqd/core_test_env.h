#pragma once

// Shared scaffolding of the broker-core unit tests (channel, topic, broker):
// a QueueContext over real disk queues in a temp dir, a test Subscriber that
// stands in for a client connection, and bounded waits.

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "core/channel.h"
#include "core/context.h"
#include "core/message.h"
#include "core/worker_pool.h"
#include "diskqueue/disk_queue.h"
#include "diskqueue/timer_thread.h"
#include "nsq/id_generator.h"
#include "nsq/message.h"
#include "nsqd/options.h"
#include "testutil/temp_dir.h"

namespace nsq::nsqd::coretest {

using namespace std::chrono_literals;

inline std::shared_ptr<spdlog::logger> null_logger() {
  return std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
}

// Polls `cond` every millisecond until it holds or `timeout` passes.
template <class F>
bool eventually(F&& cond, std::chrono::milliseconds timeout = 5s) {
  auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (cond()) return true;
    if (std::chrono::steady_clock::now() >= until) return cond();
    std::this_thread::sleep_for(1ms);
  }
}

// A client connection as a channel sees it: counts wake() calls and records
// close_for_delete(); tests wait on the counter instead of sleeping.
class TestSubscriber : public Subscriber {
 public:
  void wake() override {
    {
      std::lock_guard lock(mu_);
      ++wakes_;
    }
    cv_.notify_all();
  }
  void close_for_delete() override {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  stats::Client stats() const override {
    stats::Client c;
    c.client_id = "test";
    return c;
  }
  bool is_producer() const override { return false; }

  int wakes() const {
    std::lock_guard lock(mu_);
    return wakes_;
  }
  bool closed() const {
    std::lock_guard lock(mu_);
    return closed_;
  }
  // True once wakes() > seen (bounded wait).
  bool wait_wake_after(int seen, std::chrono::milliseconds timeout = 5s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return wakes_ > seen; });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int wakes_ = 0;
  bool closed_ = false;
};

// Options small enough for tests: short timeouts, tiny segments.
inline Options test_options() {
  Options o;
  o.mem_queue_size = 100;
  o.max_bytes_per_file = 4096;
  o.sync_every = 2500;
  o.sync_timeout = 2s;
  o.msg_timeout = 60s;
  o.max_msg_timeout = 15min;
  o.max_channel_consumers = 0;
  return o;
}

// A QueueContext as the Broker builds it, over real disk queues in a temp dir.
// Declare topics and channels after the env so they go first.
class CoreEnv {
 public:
  explicit CoreEnv(Options o = test_options(),
                   std::shared_ptr<spdlog::logger> logger = null_logger())
      : options(std::move(o)),
        log(std::move(logger)),
        disk_syncs(std::make_shared<diskqueue::TimerThread>()),
        pool(std::make_unique<WorkerPool>(2)),
        deadlines(std::make_unique<diskqueue::TimerThread>()),
        writer([this](std::error_code ec) {
          if (!ec) return;
          std::lock_guard lock(mu_);
          disk_errors_.push_back(ec);
        }),
        ctx{options,
            *log,
            *pool,
            writer,
            *deadlines,
            [this](const std::string& name) { return open_backend(name); },
            [this] { ++topology_changes; },
            nullptr,
            nullptr} {
    options.data_path = dir.path().string();
  }
  ~CoreEnv() {
    // As Broker::~Broker: deadlines first, then the pool's queued jobs.
    deadlines.reset();
    pool.reset();
  }
  CoreEnv(const CoreEnv&) = delete;
  CoreEnv& operator=(const CoreEnv&) = delete;

  diskqueue::Options queue_options(const std::string& name) const {
    diskqueue::Options o;
    o.name = name;
    o.data_path = dir.path();
    o.max_bytes_per_file = options.max_bytes_per_file;
    o.min_msg_size = static_cast<std::int32_t>(kMessageHeaderSize);
    o.max_msg_size = static_cast<std::int32_t>(options.max_msg_size + kMessageHeaderSize);
    o.sync_every = options.sync_every;
    o.sync_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options.sync_timeout);
    o.scheduler = disk_syncs;
    return o;
  }

  std::shared_ptr<diskqueue::DiskQueue> open_backend(const std::string& name) {
    auto q = diskqueue::DiskQueue::open(queue_options(name));
    if (!q) return nullptr;
    return std::shared_ptr<diskqueue::DiskQueue>(std::move(*q));
  }

  std::vector<std::error_code> disk_errors() const {
    std::lock_guard lock(mu_);
    return disk_errors_;
  }

  testutil::TempDir dir;
  Options options;
  std::shared_ptr<spdlog::logger> log;
  std::shared_ptr<diskqueue::TimerThread> disk_syncs;
  std::unique_ptr<WorkerPool> pool;
  std::unique_ptr<diskqueue::TimerThread> deadlines;
  DiskWriter writer;
  std::atomic<int> topology_changes{0};
  QueueContext ctx;

 private:
  mutable std::mutex mu_;
  std::vector<std::error_code> disk_errors_;
};

// A message with id format_message_id(n).
inline MessageRef make_message(std::uint64_t n, std::string_view body) {
  return MessageRef::create(format_message_id(n),
                            1'700'000'000'000'000'000 + static_cast<std::int64_t>(n), body);
}

inline std::string id_string(const MessageId& id) { return std::string(id.data(), id.size()); }

}  // namespace nsq::nsqd::coretest
