#pragma once

#include <cstdint>
#include <string_view>

#include "nsqd/options.h"

namespace nsq::nsqd {

// Where a consumer runs relative to this nsqd, for topology-aware
// consumption (Go master's --enable-experiment=topology-aware-consumption):
// a channel hands a message first to a waiting consumer in its zone, then in
// its region, and only then queues it for anyone.
enum class Locality : std::uint8_t { global, region, zone };

// From the topology a client sent in IDENTIFY. Without the experiment every
// consumer is global. A side this nsqd leaves unset matches nobody (Go
// matches two empty zones, but then has no zone to prefer either).
inline Locality locality_of(const Options& options, std::string_view client_region,
                            std::string_view client_zone) {
  if (!options.topology_aware_consumption()) return Locality::global;
  if (!options.topology_zone.empty() && client_zone == options.topology_zone) {
    return Locality::zone;
  }
  if (!options.topology_region.empty() && client_region == options.topology_region) {
    return Locality::region;
  }
  return Locality::global;
}

}  // namespace nsq::nsqd
