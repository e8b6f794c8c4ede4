#pragma once

#include <cstdint>

namespace nsq::stat {

// One channel's figures from an nsqd /stats, or their sum over every nsqd
// producing the topic (Go clusterinfo's ChannelStats: each field is summed).
struct ChannelStats {
  int64_t depth = 0;
  int64_t memory_depth = 0;  // depth - backend_depth
  int64_t backend_depth = 0;
  int64_t in_flight_count = 0;
  int64_t deferred_count = 0;
  int64_t message_count = 0;
  int64_t requeue_count = 0;
  int64_t timeout_count = 0;
  int64_t client_count = 0;

  // Adds every field of other (aggregation over nodes).
  void add(const ChannelStats& other);

  bool operator==(const ChannelStats&) const = default;
};

}  // namespace nsq::stat
