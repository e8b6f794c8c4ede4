// nsqd.dat (metadata::decode), which nsqd reads at start-up from a data
// directory that may hold anything. Invariants: an error has a reason; an
// accepted topology encodes to JSON that decodes to the same topology, and
// encoding is then stable (encode(decode(encode(x))) == encode(x)).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/metadata.h"

namespace {

namespace metadata = nsq::nsqd::metadata;

bool same(const metadata::Topology& a, const metadata::Topology& b) {
  if (a.version != b.version || a.topics.size() != b.topics.size()) return false;
  for (std::size_t i = 0; i < a.topics.size(); ++i) {
    const auto& x = a.topics[i];
    const auto& y = b.topics[i];
    if (x.name != y.name || x.paused != y.paused || x.channels.size() != y.channels.size()) {
      return false;
    }
    for (std::size_t j = 0; j < x.channels.size(); ++j) {
      if (x.channels[j].name != y.channels[j].name ||
          x.channels[j].paused != y.channels[j].paused) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  auto topology = metadata::decode(json);
  if (!topology) {
    if (topology.error().empty()) std::abort();
    return 0;
  }
  const std::string encoded = metadata::encode(*topology);
  auto again = metadata::decode(encoded);
  if (!again || !same(*topology, *again)) std::abort();
  if (metadata::encode(*again) != encoded) std::abort();
  return 0;
}
