#include "net/io_loop.h"

#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <thread>

namespace nsq::nsqd {

void SpinPolicy::record_gap(std::chrono::nanoseconds gap) noexcept {
  credit_ = gap < 2 * spin_ ? std::min(credit_ + 1, kMaxCredit) : std::max(credit_ - 2, 0);
}

void run_io_loop(boost::asio::io_context& ctx, std::chrono::microseconds spin) {
  if (spin.count() <= 0) {
    ctx.run();
    return;
  }
  using clock = std::chrono::steady_clock;
  SpinPolicy policy(spin);
  auto last_work = clock::now();
  while (!ctx.stopped()) {
    // poll() also asks the reactor, without blocking, for ready sockets.
    bool worked = ctx.poll() > 0;
    auto now = clock::now();
    if (!worked) {
      if (policy.should_spin() && now - last_work < spin) {
        std::this_thread::yield();
        continue;
      }
      worked = ctx.run_one() > 0;
      now = clock::now();
    }
    if (worked) {
      policy.record_gap(now - last_work);
      last_work = now;
    }
  }
}

}  // namespace nsq::nsqd
