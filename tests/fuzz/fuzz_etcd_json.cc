// What cluster mode reads from etcd (docs/replication.md): the JSON
// gateway's answers (etcd_json.h) and the values under the cluster's keys
// (topology.h). The first byte picks the parser. Invariants: an accepted
// placement has an epoch >= 1 and a replica, and encodes to a value that
// decodes to itself; a node's value round-trips too; a range answer read as
// a view never yields a topic without a replica; base64 text that decodes
// encodes back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cluster/etcd_json.h"
#include "cluster/topology.h"
#include "nsq/base64.h"

namespace {

namespace cluster = nsq::nsqd::cluster;
namespace etcd = nsq::nsqd::cluster::etcd;

void fuzz_placement(std::string_view json) {
  auto p = cluster::decode_placement(json);
  if (!p) {
    if (p.error().empty()) std::abort();
    return;
  }
  if (p->epoch < 1 || p->replicas.empty()) std::abort();
  auto again = cluster::decode_placement(cluster::encode(*p));
  if (!again || !(*again == *p)) std::abort();
}

void fuzz_node(std::string_view json) {
  auto n = cluster::decode_node(json);
  if (!n) return;
  auto again = cluster::decode_node(cluster::encode(*n));
  if (!again || again->tcp_address != n->tcp_address || again->http_address != n->http_address ||
      again->version != n->version) {
    std::abort();
  }
}

void fuzz_range(std::string_view json) {
  auto range = etcd::parse_range(json);
  if (!range) return;
  const cluster::View view = cluster::read_view(cluster::Keys{"/nsq/"}, *range);
  for (const auto& [name, topic] : view.topics) {
    if (name.empty() || topic.placement.replicas.empty()) std::abort();
    (void)cluster::choose_replicas(view, "127.0.0.1:4150", 3);
  }
}

void fuzz_base64(std::string_view text) {
  auto bytes = nsq::base64::decode(text);
  if (bytes && nsq::base64::encode(*bytes) != text) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 8) {
    case 0:
      fuzz_range(rest);
      break;
    case 1:
      (void)etcd::parse_txn(rest);
      break;
    case 2:
      (void)etcd::parse_lease_grant(rest);
      (void)etcd::parse_lease_keepalive(rest);
      break;
    case 3:
      (void)etcd::parse_revision(rest);
      (void)etcd::parse_error(rest);
      break;
    case 4:
      fuzz_placement(rest);
      break;
    case 5:
      fuzz_node(rest);
      break;
    default:
      fuzz_base64(rest);
      break;
  }
  return 0;
}
