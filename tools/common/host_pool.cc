#include "common/host_pool.h"

#include <algorithm>
#include <cassert>

namespace nsq::tools {

HostPool::HostPool(std::vector<std::string> hosts)
    : hosts_(std::move(hosts)), health_(hosts_.size()) {
  assert(!hosts_.empty());
}

std::size_t HostPool::pick(Clock::time_point now) {
  std::lock_guard lock(mu_);
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < hosts_.size(); ++i) {
      std::size_t index = (next_ + i) % hosts_.size();
      Health& h = health_[index];
      if (!h.dead || now >= h.retry_at) {
        if (h.dead) {
          // Offered again; if it fails once more it rests longer.
          h.retry_at = now + h.retry_delay;
        }
        next_ = index + 1;
        return index;
      }
    }
    // Every host is resting: make them all healthy again.
    for (Health& h : health_) h = Health{};
  }
  return 0;  // not reached: after the reset every host is healthy
}

void HostPool::mark(std::size_t index, bool ok, Clock::time_point now) {
  std::lock_guard lock(mu_);
  Health& h = health_[index];
  if (ok) {
    h = Health{};
    return;
  }
  if (h.dead) {
    h.retry_delay = std::min<Clock::duration>(h.retry_delay * 2, kMaxRetryDelay);
  } else {
    h.dead = true;
    h.retry_delay = kInitialRetryDelay;
  }
  h.retry_at = now + h.retry_delay;
}

}  // namespace nsq::tools
