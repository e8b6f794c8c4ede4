#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nsqd/options.h"

namespace nsq::nsqd {

// An option as GET /config/:opt shows it: strings raw, everything else JSON
// (durations as integer nanoseconds, log_level as 1..5, lists as arrays).
struct ConfigValue {
  std::string body;
  bool json = false;
};

// nullopt: `key` is not a config key of nsqd (400 INVALID_OPTION).
std::optional<ConfigValue> config_value(const Options& options, std::string_view key);

// A list of strings as Go's json.Marshal writes it (nsq/json/writer.h).
std::string string_list_json(const std::vector<std::string>& values);

}  // namespace nsq::nsqd
