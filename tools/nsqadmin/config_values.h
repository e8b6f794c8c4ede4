#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "options.h"

// GET /config/:opt answers: an option by its config-file key, encoded as
// Go's V1 responder writes Go's Options field (strings raw, everything else
// JSON: lists as arrays, durations in nanoseconds, log_level as Go's
// lg.LogLevel number 1=debug ... 5=fatal).
namespace nsq::admin {

struct ConfigValue {
  std::string body;
  bool json = false;  // else text
};

// nullopt: not an option key (Go's 400 INVALID_OPTION).
std::optional<ConfigValue> config_value(const Options& options, std::string_view key);

// PUT /config/nsqlookupd_http_addresses: the body as Go's json.Unmarshal into
// a []string takes it (an array of strings, or null); nullopt otherwise.
std::optional<std::vector<std::string>> parse_string_list(const std::string& body);

}  // namespace nsq::admin
