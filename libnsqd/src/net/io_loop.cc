#include "net/io_loop.h"

#include <boost/asio/io_context.hpp>

#include "net/streaming_hint.h"

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
  StreamingHint& hint = boost::asio::use_service<StreamingHint>(ctx);
  bool streamed = false;
  auto last_work = clock::now();
  while (!ctx.stopped()) {
    // poll() also asks the reactor, without blocking, for ready sockets.
    bool worked = ctx.poll() > 0;
    auto now = clock::now();
    // A burst of work that streamed is not followed by a spin.
    if (worked) streamed = hint.take() || streamed;
    if (!worked) {
      if (!streamed && policy.should_spin() && now - last_work < spin) {
        std::this_thread::yield();
        continue;
      }
      worked = ctx.run_one() > 0;
      now = clock::now();
      streamed = hint.take();  // about the work that woke it
    }
    if (worked) {
      policy.record_gap(now - last_work);
      last_work = now;
    }
  }
}

}  // namespace nsq::nsqd
