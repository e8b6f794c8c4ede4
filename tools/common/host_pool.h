#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

// The "hostpool" (and "epsilon-greedy") mode of nsq_to_nsq and nsq_to_http:
// a simplified bitly/go-hostpool. Hosts are taken in turn, skipping hosts
// marked failed: a failed host rests for 30 s, doubling with each further
// consecutive failure up to 15 min; once it is due it is offered again, and
// a success makes it healthy. If every host is resting, all are made
// healthy again (go-hostpool's reset) so work is never refused.
// epsilon-greedy (latency-weighted choice in Go) is served the same way.
namespace nsq::tools {

// @par Thread Safety: every member may be called from any thread (one mutex).
class HostPool {
 public:
  using Clock = std::chrono::steady_clock;

  explicit HostPool(std::vector<std::string> hosts);

  // Index (into the constructor's list) of the host to use now.
  std::size_t pick(Clock::time_point now = Clock::now());
  // The outcome of using host `index`.
  void mark(std::size_t index, bool ok, Clock::time_point now = Clock::now());

  const std::string& host(std::size_t index) const { return hosts_[index]; }
  std::size_t size() const { return hosts_.size(); }

  static constexpr std::chrono::seconds kInitialRetryDelay{30};
  static constexpr std::chrono::seconds kMaxRetryDelay{900};

 private:
  struct Health {
    bool dead = false;
    Clock::time_point retry_at{};
    Clock::duration retry_delay = kInitialRetryDelay;
  };

  const std::vector<std::string> hosts_;
  std::mutex mu_;
  std::vector<Health> health_;  // guarded by mu_
  std::size_t next_ = 0;        // guarded by mu_
};

}  // namespace nsq::tools
