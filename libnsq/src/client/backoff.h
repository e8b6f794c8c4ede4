#pragma once

#include <chrono>
#include <random>

#include "nsq/client/config.h"

namespace nsq::client {

// go-nsq's backoff arithmetic, kept pure so tests can check it.
// Exponential: multiplier x 2^level, capped at max_backoff_duration;
// full jitter: a random point below that.
Config::Duration backoff_duration(const Config& config, int level, std::mt19937_64& rng);

// A failure raises the level only while the next step stays within max.
bool can_raise_backoff(const Config& config, int level);

// REQ delay for a failed message: the explicit one, else
// default_requeue_delay x attempts, capped at max_requeue_delay.
std::chrono::milliseconds requeue_delay(const Config& config,
                                        std::chrono::milliseconds explicit_delay, int attempts);

// Per-connection RDY: min(max(1, max_in_flight / conns), max_in_flight).
int64_t per_connection_rdy(int max_in_flight, std::size_t connections);

}  // namespace nsq::client
