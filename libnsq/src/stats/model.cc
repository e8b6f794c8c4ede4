#include "nsq/stats/model.h"

namespace nsq::stats {

const Topic* find_topic(const Snapshot& s, std::string_view name) {
  for (const auto& t : s.topics) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const Channel* find_channel(const Topic& t, std::string_view name) {
  for (const auto& c : t.channels) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

void ChannelCounts::add(const ChannelCounts& other) {
  depth += other.depth;
  backend_depth += other.backend_depth;
  in_flight_count += other.in_flight_count;
  deferred_count += other.deferred_count;
  message_count += other.message_count;
  requeue_count += other.requeue_count;
  timeout_count += other.timeout_count;
  zone_local_msg_count += other.zone_local_msg_count;
  region_local_msg_count += other.region_local_msg_count;
  global_msg_count += other.global_msg_count;
  expired_count += other.expired_count;
  dead_letter_count += other.dead_letter_count;
  discarded_count += other.discarded_count;
  dropped_count += other.dropped_count;
  client_count += other.client_count;
}

}  // namespace nsq::stats
