#include "core/context.h"

namespace nsq::nsqd {

std::int64_t unix_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace nsq::nsqd
