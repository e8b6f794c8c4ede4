#pragma once

#include <chrono>
#include <cstdint>

#include "socket.h"

namespace nsq::bench {

struct LoopbackResult {
  uint64_t bytes = 0;
  double secs = 0;
};

// The machine's loopback TCP bandwidth: one thread writes 64 KiB chunks for
// `duration`, another reads them. No broker can deliver more than this, so
// it is printed beside the nsqd figures as the physical limit.
Expected<LoopbackResult> measure_loopback(std::chrono::nanoseconds duration);

}  // namespace nsq::bench
