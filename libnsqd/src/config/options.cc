#include "nsqd/options.h"

#include <algorithm>

#include "nsq/id_generator.h"

namespace nsq::nsqd {

Options default_options(std::string_view hostname) {
  Options opts;
  opts.node_id = default_node_id(hostname);
  opts.broadcast_address = std::string(hostname);
  return opts;
}

bool Options::topology_aware_consumption() const {
  return std::find(experiments.begin(), experiments.end(), kTopologyAwareConsumption) !=
         experiments.end();
}

std::string_view to_string(TlsRequired required) noexcept {
  switch (required) {
    case TlsRequired::no:
      return "false";
    case TlsRequired::yes:
      return "true";
    case TlsRequired::tcp_https:
      return "tcp-https";
  }
  return "invalid";
}

std::string_view to_string(TlsVersion version) noexcept {
  switch (version) {
    case TlsVersion::tls1_0:
      return "tls1.0";
    case TlsVersion::tls1_1:
      return "tls1.1";
    case TlsVersion::tls1_2:
      return "tls1.2";
    case TlsVersion::tls1_3:
      return "tls1.3";
  }
  return "invalid";
}

}  // namespace nsq::nsqd
