#pragma once

#include <chrono>

namespace boost::asio {
class io_context;
}

namespace nsq::nsqd {

// Whether an I/O thread that has run out of work should keep polling for a
// while before it sleeps in epoll_wait. Waking a sleeping thread costs far
// more on a VM than a client's round trip (the other vCPU halts and must be
// woken through the hypervisor): that wake was the largest part of a single
// PUB's latency. Polling pays only while work comes back within the spin,
// so each idle gap is scored: a short one (under twice the spin, slack for
// the handler's own time) earns a credit, a long one costs two; the thread
// spins while it has credit. Work that comes more often than every two
// spins about two times in three keeps it polling; slower work stops it
// after one or two misses, so an idle or slow broker does not burn a core.
class SpinPolicy {
 public:
  explicit SpinPolicy(std::chrono::microseconds spin) noexcept : spin_(spin) {}

  bool should_spin() const noexcept { return credit_ > 0; }
  // From the end of one piece of work to the end of the next.
  void record_gap(std::chrono::nanoseconds gap) noexcept;

 private:
  static constexpr int kMaxCredit = 4;
  std::chrono::microseconds spin_;
  int credit_ = 1;
};

// Runs `ctx` until it is stopped, polling (and yielding the core to anyone
// runnable) for up to `spin` after each piece of work while SpinPolicy says
// it pays and no connection streamed (StreamingHint). A zero spin is
// io_context::run().
void run_io_loop(boost::asio::io_context& ctx, std::chrono::microseconds spin);

}  // namespace nsq::nsqd
