#include "net/io_loop.h"

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "net/streaming_hint.h"

#include <pthread.h>
#include <time.h>

#include <chrono>
#include <future>
#include <thread>

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

TEST(SpinPolicy, SpinsWhileWorkComesWithinTwoSpinsAndStopsAfterLongGaps) {
  SpinPolicy p(100us);
  EXPECT_TRUE(p.should_spin());  // until the first gap says otherwise
  p.record_gap(1ms);
  EXPECT_FALSE(p.should_spin());
  p.record_gap(150us);  // within twice the spin: the handler's time is slack
  EXPECT_TRUE(p.should_spin());
  for (int i = 0; i < 10; ++i) p.record_gap(20us);
  // Credit is capped: two long gaps stop it whatever came before.
  p.record_gap(5ms);
  EXPECT_TRUE(p.should_spin());
  p.record_gap(5ms);
  EXPECT_FALSE(p.should_spin());
  // One miss in three keeps it spinning; two in three do not.
  for (int i = 0; i < 30; ++i) p.record_gap(i % 3 == 0 ? 1ms : 20us);
  EXPECT_TRUE(p.should_spin());
  for (int i = 0; i < 30; ++i) p.record_gap(i % 3 == 0 ? 20us : 1ms);
  EXPECT_FALSE(p.should_spin());
}

// Work posted from another thread one piece at a time, each after the
// previous one ran (a client's round trips), and a timer: all run, whether
// the loop spins throughout (1 s) or sleeps between them (1 us, 0: run()),
// and stop() ends the loop while it spins or sleeps.
TEST(IoLoop, RunsPostedWorkAndTimersAndStops) {
  for (auto spin : {0us, 1us, 1000000us}) {
    asio::io_context ctx(1);
    auto guard = asio::make_work_guard(ctx);
    std::thread loop([&] { run_io_loop(ctx, spin); });
    for (int i = 0; i < 200; ++i) {
      std::promise<std::thread::id> ran;
      asio::post(ctx, [&] { ran.set_value(std::this_thread::get_id()); });
      auto f = ran.get_future();
      ASSERT_EQ(f.wait_for(5s), std::future_status::ready) << "spin " << spin.count();
      EXPECT_EQ(f.get(), loop.get_id());
    }
    std::promise<void> fired;
    asio::steady_timer timer(ctx, 2ms);
    timer.async_wait([&](auto) { fired.set_value(); });
    EXPECT_EQ(fired.get_future().wait_for(5s), std::future_status::ready)
        << "spin " << spin.count();
    ctx.stop();
    loop.join();
    EXPECT_TRUE(ctx.stopped());
  }
}

// Like run(), the loop returns once it has no work and nothing keeps it.
TEST(IoLoop, ReturnsWhenOutOfWorkWithoutAGuard) {
  asio::io_context ctx(1);
  int ran = 0;
  asio::post(ctx, [&] { ++ran; });
  run_io_loop(ctx, 100us);
  EXPECT_EQ(ran, 1);
}

// After work that streamed, the loop sleeps instead of polling: with a
// spin of 10 s, its thread takes (almost) no CPU while it waits; without
// the hint it would poll for the whole wait.
TEST(IoLoop, SleepsAtOnceAfterWorkThatStreamed) {
  asio::io_context ctx(1);
  auto guard = asio::make_work_guard(ctx);
  std::promise<clockid_t> started;
  std::thread loop([&] {
    clockid_t clock;
    pthread_getcpuclockid(pthread_self(), &clock);
    started.set_value(clock);
    run_io_loop(ctx, 10s);
  });
  const clockid_t loop_cpu = started.get_future().get();
  auto cpu_now = [&] {
    timespec ts{};
    clock_gettime(loop_cpu, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  };
  std::promise<void> ran;
  asio::post(ctx, [&] {
    asio::use_service<StreamingHint>(ctx).streamed();
    ran.set_value();
  });
  ran.get_future().wait();
  const auto before = cpu_now();
  // A wait the loop must not fill: the CPU it took is what is measured.
  std::this_thread::sleep_for(200ms);
  const auto used = cpu_now() - before;
  EXPECT_LT(used, 50ms) << "the loop polled after streamed work";
  ctx.stop();
  loop.join();
}

}  // namespace
}  // namespace nsq::nsqd
