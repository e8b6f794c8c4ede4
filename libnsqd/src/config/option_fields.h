#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "nsq/config/config_file.h"
#include "nsq/config/option_table.h"
#include "nsq/flags/go_flags.h"
#include "nsqd/options.h"

// The table that ties each nsqd option to its flag and its config key
// (Go's `flag:"..." cfg:"..."` struct tags), in Go's Options field order,
// which is also the order config values are resolved and reported in.
namespace nsq::nsqd::detail {

using OptionField = config::OptionField<Options>;

std::vector<OptionField> nsqd_option_fields();

// Text forms shared by flags and config values.
tl::expected<LogLevel, std::string> parse_log_level(std::string_view s);
tl::expected<TlsRequired, std::string> parse_tls_required(std::string_view s);
// nullopt for "" (keep the current value).
tl::expected<std::optional<TlsVersion>, std::string> parse_tls_min_version(std::string_view s);

}  // namespace nsq::nsqd::detail
