// The bodies of POST /cluster/fetch (cluster/replication_wire.h): a
// follower's request as the leader reads it, and the leader's answer as a
// follower reads it. The first byte picks which. Invariants: what decodes
// encodes back to the same bytes, and decodes again to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cluster/replication_wire.h"

namespace wire = nsq::nsqd::cluster::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    auto request = wire::decode_request(body);
    if (!request) return 0;
    const std::string again = wire::encode(*request);
    if (again != body) std::abort();
    auto back = wire::decode_request(again);
    if (!back || !(*back == *request)) std::abort();
  } else {
    auto answers = wire::decode_answers(body);
    if (!answers) return 0;
    const std::string again = wire::encode(*answers);
    if (again != body) std::abort();
    auto back = wire::decode_answers(again);
    if (!back || !(*back == *answers)) std::abort();
  }
  return 0;
}
