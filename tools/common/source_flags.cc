#include "common/source_flags.h"

#include "common/go_log.h"

namespace nsq::tools {

void add_source_flags(flags::FlagSet& fs, SourceAddresses* addresses) {
  fs.add_string_list("nsqd-tcp-address", &addresses->nsqd_tcp,
                     "nsqd TCP address (may be given multiple times)");
  fs.add_string_list("lookupd-http-address", &addresses->lookupd_http,
                     "lookupd HTTP address (may be given multiple times)");
}

std::optional<std::string> source_selection_error(const SourceAddresses& addresses) {
  if (addresses.nsqd_tcp.empty() && addresses.lookupd_http.empty()) {
    return "--nsqd-tcp-address or --lookupd-http-address required";
  }
  if (!addresses.nsqd_tcp.empty() && !addresses.lookupd_http.empty()) {
    return "use --nsqd-tcp-address or --lookupd-http-address not both";
  }
  return std::nullopt;
}

void require_one_source_or_exit(const SourceAddresses& addresses) {
  if (auto error = source_selection_error(addresses)) log_fatal(*error);
}

tl::expected<void, std::string> connect_consumer(client::Consumer& consumer,
                                                 const SourceAddresses& addresses) {
  if (!addresses.nsqd_tcp.empty()) {
    if (auto r = consumer.connect_to_nsqds(addresses.nsqd_tcp); !r) return r;
  }
  if (!addresses.lookupd_http.empty()) {
    if (auto r = consumer.connect_to_lookupds(addresses.lookupd_http); !r) return r;
  }
  return {};
}

}  // namespace nsq::tools
