#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>

#include "clock.h"
#include "commands.h"
#include "frame_buffer.h"
#include "histogram.h"
#include "run_control.h"
#include "socket.h"

namespace nsq::bench {

struct WriterConfig {
  std::string address;
  std::string topic;
  int batch_size = 200;
  int size = 100;
  int pipeline = 1;
  bool identify = false;
  IdentifySettings features;  // tls_v1/snappy/deflate asked for; any forces IDENTIFY
  bool stamp = false;         // --latency: put the send time at the start of each body
  double rate = 0;            // messages/s for this connection; 0 = unpaced
  std::chrono::nanoseconds drain{std::chrono::seconds(5)};  // wait this long for the last OKs
};

// One publishing connection, run on its own thread: PUB/MPUB the same batch
// until RunControl::stop_writers, keeping at most `pipeline` requests
// unanswered, and time each request->OK round trip.
//
// @par Thread Safety: run() on one thread; acked_messages() from any thread;
// the other getters only after that thread was joined.
class Writer {
 public:
  Writer(WriterConfig config, RunControl& control, int index);  // control must outlive run()

  void run();

  uint64_t acked_messages() const noexcept { return acked_.load(std::memory_order_relaxed); }
  SteadyClock::time_point last_ack() const noexcept { return last_ack_; }
  uint64_t unacked_batches() const noexcept { return sent_at_.size(); }
  const LatencyHistogram& round_trips() const noexcept { return round_trips_; }

 private:
  Expected<Socket> connect();
  Expected<void> publish(Socket& socket);
  Expected<void> on_frame(Socket& socket, const FrameView& frame);
  std::string name() const { return "writer " + std::to_string(index_); }

  WriterConfig config_;
  RunControl& control_;
  int index_;
  FrameBuffer in_{64 * 1024 * 4};  // responses are tiny; no need for the reader's size
  std::deque<SteadyClock::time_point> sent_at_;  // send times of unanswered requests, oldest first
  std::atomic<uint64_t> acked_{0};
  SteadyClock::time_point last_ack_{};
  LatencyHistogram round_trips_;
};

}  // namespace nsq::bench
