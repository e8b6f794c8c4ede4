#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "nsq/flags/go_flags.h"

// nsq_stat's command line (spec/tools.md §3), with Go's defaults.
namespace nsq::stat {

struct Options {
  bool show_version = false;
  std::string topic;                             // required
  std::string channel;                           // required
  std::vector<std::string> nsqd_http_addresses;  // exactly one kind of source
  std::vector<std::string> lookupd_http_addresses;
  std::chrono::nanoseconds interval = std::chrono::seconds(2);  // poll period, > 0
  std::optional<int> count;  // report lines before exiting; unset = forever
  std::chrono::nanoseconds http_connect_timeout = std::chrono::seconds(2);
  std::chrono::nanoseconds http_request_timeout = std::chrono::seconds(5);
};

// Registers every flag of Go's nsq_stat on fs, storing into *options (which
// must outlive fs.parse()).
void add_flags(flags::FlagSet& fs, Options* options);

// Go's checks after parsing, in Go's order: the log.Fatal text of the first
// that fails (e.g. "--topic and --channel are required"), nullopt if none.
std::optional<std::string> validation_error(const Options& options);

}  // namespace nsq::stat
