// nsqd's per-message broker work, without sockets: a topic's fan-out to N
// channels, a channel's take/FIN cycle with many messages in flight, and the
// deadline heap (insert, remove by FIN, expire). Memory only: ephemeral
// topic and channels, so no disk queue is involved (bm_diskqueue covers the
// disk queue's put and read).

#include <benchmark/benchmark.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/channel.h"
#include "core/context.h"
#include "core/deadline_heap.h"
#include "core/topic.h"
#include "core/worker_pool.h"
#include "diskqueue/timer_thread.h"
#include "nsq/id_generator.h"
#include "nsqd/options.h"

namespace {

using namespace nsq;
using namespace nsq::nsqd;
using namespace std::chrono_literals;

// What a connection is to a channel; the benchmarks take() directly.
class NullSubscriber : public Subscriber {
 public:
  void wake() override {}
  void close_for_delete() override {}
};

// The QueueContext a Broker builds, with no disk queue (ephemeral names).
struct Env {
  Env() {
    options.mem_queue_size = 1'000'000;
    options.msg_timeout = 60s;
  }
  Options options;
  std::shared_ptr<spdlog::logger> log =
      std::make_shared<spdlog::logger>("bm", std::make_shared<spdlog::sinks::null_sink_mt>());
  WorkerPool pool{1};
  DiskWriter writer{nullptr};
  diskqueue::TimerThread deadlines;
  QueueContext ctx{
      options,   *log,
      pool,      writer,
      deadlines, [](const std::string&) { return std::shared_ptr<diskqueue::DiskQueue>(); },
      nullptr,   nullptr,
      nullptr};
};

// One MPUB of 200 100-byte messages into a topic with N channels, then each
// channel hands all 200 to its client and gets them FIN'd: the whole
// in-memory path of a message, per delivery. Items: deliveries (200 x N).
void BM_TopicFanOutDeliverFin(benchmark::State& state) {
  const int channels = static_cast<int>(state.range(0));
  const int batch = 200;
  Env env;
  auto topic = std::make_shared<Topic>("bm#ephemeral", 1, env.ctx, nullptr);
  auto sub = std::make_shared<NullSubscriber>();
  std::vector<std::shared_ptr<Channel>> chans;
  for (int i = 0; i < channels; ++i) {
    chans.push_back(topic->get_or_create_channel("c" + std::to_string(i) + "#ephemeral"));
    chans.back()->add_client(1, sub);
  }
  std::string body(100, 'x');
  std::vector<std::string_view> bodies(batch, body);
  std::vector<QueuedMessage> taken;
  taken.reserve(batch);
  for (auto _ : state) {
    DiskWrites spill;
    topic->publish(bodies, 0ms, spill);
    for (auto& ch : chans) {
      taken.clear();
      ch->take(1, 2500, batch, 0, 60s, taken);
      for (const QueuedMessage& m : taken) ch->finish(1, m.msg->id());
    }
  }
  state.SetItemsProcessed(state.iterations() * batch * channels);
  for (auto& ch : chans) ch->remove_client(1);
}
BENCHMARK(BM_TopicFanOutDeliverFin)->Arg(1)->Arg(4)->Arg(16);

// Publish only: the fan-out of an MPUB of 200 into N channels' memory
// queues (a pointer copy per channel, never the body). The queues are
// emptied outside the timing every 64 batches. Items: messages x channels.
void BM_TopicFanOutPublish(benchmark::State& state) {
  const int channels = static_cast<int>(state.range(0));
  const int batch = 200;
  Env env;
  auto topic = std::make_shared<Topic>("bm#ephemeral", 1, env.ctx, nullptr);
  std::vector<std::shared_ptr<Channel>> chans;
  for (int i = 0; i < channels; ++i)
    chans.push_back(topic->get_or_create_channel("c" + std::to_string(i) + "#ephemeral"));
  std::string body(100, 'x');
  std::vector<std::string_view> bodies(batch, body);
  int n = 0;
  for (auto _ : state) {
    DiskWrites spill;
    topic->publish(bodies, 0ms, spill);
    if (++n % 64 == 0) {
      state.PauseTiming();
      for (auto& ch : chans) ch->empty();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations() * batch * channels);
}
BENCHMARK(BM_TopicFanOutPublish)->Arg(1)->Arg(4)->Arg(16);

// A channel with `inflight` messages out: each iteration takes one more and
// FINs the oldest (hash map + deadline heap insert and remove under the
// channel's lock).
void BM_ChannelInFlightTakeFin(benchmark::State& state) {
  const auto inflight = static_cast<std::size_t>(state.range(0));
  Env env;
  auto topic = std::make_shared<Topic>("bm#ephemeral", 1, env.ctx, nullptr);
  auto ch = topic->get_or_create_channel("c#ephemeral");
  auto sub = std::make_shared<NullSubscriber>();
  ch->add_client(1, sub);
  std::string body(100, 'x');
  std::vector<std::string_view> bodies(1000, body);
  std::deque<MessageId> out;
  std::vector<QueuedMessage> taken;
  auto refill = [&] {
    DiskWrites spill;
    topic->publish(bodies, 0ms, spill);
  };
  refill();
  while (out.size() < inflight) {
    taken.clear();
    ch->take(1, static_cast<std::int64_t>(inflight + 1), 1, 0, 60s, taken);
    if (taken.empty()) refill();
    for (auto& m : taken) out.push_back(m.msg->id());
  }
  std::size_t left = 1000;  // messages still queued in the channel
  for (auto _ : state) {
    if (left == 0) {
      state.PauseTiming();
      refill();
      left = 1000;
      state.ResumeTiming();
    }
    taken.clear();
    ch->take(1, static_cast<std::int64_t>(inflight + 1), 1, 0, 60s, taken);
    --left;
    out.push_back(taken.front().msg->id());
    ch->finish(1, out.front());
    out.pop_front();
  }
  state.SetItemsProcessed(state.iterations());
  ch->remove_client(1);
}
BENCHMARK(BM_ChannelInFlightTakeFin)->Arg(100)->Arg(2500)->Arg(100000);

struct Item {
  std::chrono::steady_clock::time_point deadline;
  std::size_t heap_index = 0;
};

// The deadline heap alone with `n` entries: insert one (deadline later than
// most, as a new delivery is) and remove a random one (a FIN).
void BM_DeadlineHeapInsertRemove(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<Item> items(n + 1);
  DeadlineHeap<Item> heap;
  auto t = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    items[i].deadline = t + std::chrono::microseconds(i);
    heap.push(&items[i]);
  }
  std::minstd_rand rng(1);
  std::size_t next = n;  // the free slot
  std::uint64_t tick = n;
  for (auto _ : state) {
    items[next].deadline = t + std::chrono::microseconds(tick++);
    heap.push(&items[next]);
    std::size_t victim = rng() % (n + 1);
    heap.remove(&items[victim]);
    next = victim;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DeadlineHeapInsertRemove)->Arg(100)->Arg(2500)->Arg(100000);

// Expiry: `n` entries all past their deadline, popped in order (what a
// channel's deadline task does when a consumer vanished with n in flight).
void BM_DeadlineHeapExpire(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<Item> items(n);
  DeadlineHeap<Item> heap;
  std::minstd_rand rng(2);
  auto t = std::chrono::steady_clock::now();
  for (auto _ : state) {
    state.PauseTiming();
    for (auto& it : items) {
      it.deadline = t + std::chrono::microseconds(rng() % 1'000'000);
      heap.push(&it);
    }
    state.ResumeTiming();
    auto now = t + 2s;
    while (!heap.empty() && heap.top()->deadline <= now) heap.remove(heap.top());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_DeadlineHeapExpire)->Arg(2500)->Arg(100000);

}  // namespace

BENCHMARK_MAIN();
