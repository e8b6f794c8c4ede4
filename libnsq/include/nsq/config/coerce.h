#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "nsq/config/config_file.h"

// How Go nsqd and nsqlookupd (go-options' coerce) turns a config file value into an option
// of a given type. Errors are Go's reason texts.
namespace nsq::config {

// fmt's %v of the value, for messages and for the options nsqd re-parses
// from text (tls_required, tls_min_version, log_level).
std::string go_format(const Value& v);

// bool, a string strconv.ParseBool takes, or an integer (!= 0).
tl::expected<bool, std::string> coerce_bool(const Value& v);
// integer, or a decimal string.
tl::expected<std::int64_t, std::string> coerce_int(const Value& v);
// string; other scalars as their %v text.
tl::expected<std::string, std::string> coerce_string(const Value& v);
// Go duration string, or an integer number of milliseconds.
tl::expected<std::chrono::nanoseconds, std::string> coerce_duration(const Value& v);
// array of strings, or one comma-separated string (not trimmed).
tl::expected<std::vector<std::string>, std::string> coerce_string_list(const Value& v);
// array of numbers, or one comma-separated string (each part trimmed).
tl::expected<std::vector<double>, std::string> coerce_float_list(const Value& v);

}  // namespace nsq::config
