#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "clock.h"
#include "commands.h"
#include "frame_buffer.h"
#include "histogram.h"
#include "run_control.h"
#include "socket.h"

namespace nsq::bench {

struct ReaderConfig {
  std::string address;
  std::string topic;
  std::string channel;
  int rdy = 2500;
  bool latency = false;  // read the send stamp at the start of each body
  IdentifySettings identify;
};

// One consuming connection, run on its own thread: IDENTIFY, SUB, RDY, then
// FIN every message until RunControl::stop_readers. FINs for everything
// decoded from one socket read go out in one write.
//
// @par Thread Safety: run() on one thread; messages() from any thread; the
// other getters only after that thread was joined.
class Reader {
 public:
  Reader(ReaderConfig config, RunControl& control, int index);  // control must outlive run()

  void run();

  uint64_t messages() const noexcept { return messages_.load(std::memory_order_relaxed); }
  uint64_t body_bytes() const noexcept { return bytes_; }
  uint64_t fin_failed() const noexcept { return fin_failed_; }
  // Stamped before this run started: left over from an earlier one.
  uint64_t stale() const noexcept { return stale_; }
  SteadyClock::time_point last_message() const noexcept { return last_message_; }
  int rdy() const noexcept { return rdy_; }
  const LatencyHistogram& latency() const noexcept { return latency_; }
  // Server's max_rdy_count when it was below --rdy, else 0.
  int64_t rdy_clamped_to() const noexcept { return rdy_clamped_to_; }

 private:
  Expected<Socket> connect();
  Expected<void> consume(Socket& socket);
  // Decodes every complete frame in in_ and queues the FINs in out_.
  Expected<void> on_frames(int64_t now_realtime_ns);
  void close(Socket& socket);
  std::string name() const { return "reader " + std::to_string(index_); }

  ReaderConfig config_;
  RunControl& control_;
  int index_;
  int rdy_;
  int64_t rdy_clamped_to_ = 0;
  FrameBuffer in_;
  std::string out_;  // FINs and NOPs not yet written
  std::atomic<uint64_t> messages_{0};
  uint64_t count_ = 0;  // messages_ without the atomic, for the hot loop
  uint64_t bytes_ = 0;
  uint64_t fin_failed_ = 0;
  uint64_t stale_ = 0;
  SteadyClock::time_point last_message_{};
  LatencyHistogram latency_;
};

}  // namespace nsq::bench
