#include "backoff.h"

#include <algorithm>

namespace nsq::client {
namespace {

// multiplier x 2^level without overflow (saturates at max).
Config::Duration scaled(const Config& config, int level) {
  auto d = config.backoff_multiplier;
  for (int i = 0; i < level; ++i) {
    if (d > config.max_backoff_duration) break;
    d *= 2;
  }
  return d;
}

}  // namespace

Config::Duration backoff_duration(const Config& config, int level, std::mt19937_64& rng) {
  auto d = std::min(scaled(config, level), config.max_backoff_duration);
  if (config.backoff_strategy == BackoffStrategy::full_jitter && d.count() > 0) {
    std::uniform_int_distribution<int64_t> pick(0, d.count() - 1);
    d = Config::Duration(pick(rng));
  }
  return d;
}

bool can_raise_backoff(const Config& config, int level) {
  return scaled(config, level + 1) <= config.max_backoff_duration;
}

std::chrono::milliseconds requeue_delay(const Config& config,
                                        std::chrono::milliseconds explicit_delay, int attempts) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  if (explicit_delay.count() >= 0) return explicit_delay;
  auto d = duration_cast<milliseconds>(config.default_requeue_delay) * attempts;
  return std::min(d, duration_cast<milliseconds>(config.max_requeue_delay));
}

int64_t per_connection_rdy(int max_in_flight, std::size_t connections) {
  if (connections == 0) return max_in_flight;
  int64_t share = max_in_flight / static_cast<int64_t>(connections);
  return std::min<int64_t>(std::max<int64_t>(1, share), max_in_flight);
}

}  // namespace nsq::client
