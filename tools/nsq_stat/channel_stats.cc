#include "channel_stats.h"

namespace nsq::stat {

void ChannelStats::add(const ChannelStats& other) {
  depth += other.depth;
  memory_depth += other.memory_depth;
  backend_depth += other.backend_depth;
  in_flight_count += other.in_flight_count;
  deferred_count += other.deferred_count;
  message_count += other.message_count;
  requeue_count += other.requeue_count;
  timeout_count += other.timeout_count;
  client_count += other.client_count;
}

}  // namespace nsq::stat
