#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "nsq/go_logger.h"

// nsqlookupd's settings: one field per flag of Go nsqlookupd v1.3.0 (same
// names with '-' -> '_'). Filled once at startup by parse_lookupd_options
// (options_parser.h): flag > config file > default.
namespace nsq::lookupd {

using LogLevel = GoLogLevel;

struct Options {
  using Duration = std::chrono::nanoseconds;

  LogLevel log_level = LogLevel::info;        // --log-level
  std::string log_prefix = "[nsqlookupd] ";   // --log-prefix
  std::string tcp_address = "0.0.0.0:4160";   // --tcp-address: V1 listener (nsqd)
  std::string http_address = "0.0.0.0:4161";  // --http-address: HTTP API
  // --broadcast-address: returned in IDENTIFY responses. Default: the OS
  // hostname (default_options()).
  std::string broadcast_address;
  // --inactive-producer-timeout: producers not heard from (IDENTIFY/PING)
  // for longer are left out of /lookup and /nodes.
  Duration inactive_producer_timeout = std::chrono::minutes(5);
  // --tombstone-lifetime: how long a tombstoned producer stays out of /lookup.
  Duration tombstone_lifetime = std::chrono::seconds(45);
};

// Go's defaults with broadcast_address = hostname.
Options default_options(std::string_view hostname);

}  // namespace nsq::lookupd
