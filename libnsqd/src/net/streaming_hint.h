#pragma once

#include <utility>  // before Asio's headers (Boost 1.74)

#include <boost/asio/execution_context.hpp>

namespace nsq::nsqd {

// Tells an I/O loop (run_io_loop) that a connection it runs read several
// commands at once: its peer streams them (a consumer's FINs), so its next
// bytes come whether or not the loop polls, and polling would only cut them
// into more, smaller reads. The loop then sleeps at once after that work
// instead of spinning; a streaming consumer cost 10% more CPU per message
// with the spin, for no throughput. One per io_context, as an Asio service.
//
// Not thread-safe: only the thread that runs the io_context touches it.
class StreamingHint final : public boost::asio::execution_context::service {
 public:
  using key_type = StreamingHint;
  static inline boost::asio::execution_context::id id;

  explicit StreamingHint(boost::asio::execution_context& ctx) : service(ctx) {}

  // From a connection: its last read brought several commands.
  void streamed() noexcept { streamed_ = true; }
  // From the loop: whether one did since the last call.
  bool take() noexcept { return std::exchange(streamed_, false); }

 private:
  void shutdown() override {}

  bool streamed_ = false;
};

}  // namespace nsq::nsqd
