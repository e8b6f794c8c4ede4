#include "lookupd/options_parser.h"

#include "nsq/config/option_table.h"

namespace nsq::lookupd {
namespace {

// Go's nsqlookupd Options order.
config::DaemonParser<Options> parser() {
  using O = Options;
  using config::option;
  config::DaemonParser<Options> p;
  p.program = "nsqlookupd";
  auto& f = p.fields;
  f.push_back(config::log_level_option(&O::log_level));
  f.push_back(option("log-prefix", "log message prefix", &O::log_prefix));
  f.push_back(option("tcp-address", "<addr>:<port> to listen on for TCP clients", &O::tcp_address));
  f.push_back(
      option("http-address", "<addr>:<port> to listen on for HTTP clients", &O::http_address));
  f.push_back(option("broadcast-address",
                     "address of this lookupd node, (default to the OS hostname)",
                     &O::broadcast_address));
  f.push_back(option("inactive-producer-timeout",
                     "duration of time a producer will remain in the active list since its last "
                     "ping",
                     &O::inactive_producer_timeout));
  f.push_back(option("tombstone-lifetime",
                     "duration of time a producer will remain tombstoned if registration remains",
                     &O::tombstone_lifetime));
  return p;
}

}  // namespace

ParseOutcome parse_lookupd_options(std::span<const std::string> args, const ParseEnv& env) {
  return config::parse_daemon_options(parser(), default_options(env.hostname), args, env.compiler);
}

}  // namespace nsq::lookupd
