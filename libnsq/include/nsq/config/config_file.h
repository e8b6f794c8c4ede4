#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <tl/expected.hpp>

// A config file's top-level keys as plain values, the shape Go's TOML decoder
// gives nsqd and nsqlookupd (map[string]interface{}); keeps toml++ out of everything else.
namespace nsq::config {

struct Value;
using Array = std::vector<Value>;
// A nested table. nsqd and nsqlookupd have no table-valued keys, so only its presence matters.
struct Table {};

struct Value {
  // TOML dates and times arrive as their text.
  std::variant<bool, std::int64_t, double, std::string, Array, Table> v;
};

using Map = std::map<std::string, Value, std::less<>>;

// Reads and parses a TOML file. The error is the reason only (Go nsqd adds
// "failed to load config file <path> - ").
tl::expected<Map, std::string> load_toml_file(const std::string& path);

// Same for TOML text.
tl::expected<Map, std::string> parse_toml(std::string_view text);

}  // namespace nsq::config
