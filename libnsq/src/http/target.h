#pragma once

// Request-target and query decoding with Go's net/url rules (no Asio/Beast).

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nsq::http::detail {

// Decodes %XX escapes ('+' → ' ' if plus_is_space). nullopt on a '%' not
// followed by two hex digits (Go's url.unescape error).
std::optional<std::string> unescape(std::string_view s, bool plus_is_space);

struct Target {
  std::string path;       // decoded
  std::string raw_query;  // after the first '?'
};

// Origin form "/a?b", absolute form "http://host/a?b" or "*" (Go's
// url.ParseRequestURI). nullopt for anything else or a bad escape in the path.
std::optional<Target> parse_target(std::string_view target);

struct Query {
  std::vector<std::pair<std::string, std::string>> pairs;
  bool bad = false;  // some pair was rejected (Go's url.ParseQuery returned an error)
};

// Go's url.ParseQuery: pairs split on '&', a pair holding ';' or a bad escape is
// skipped and marks the query bad, empty pairs are skipped, "k" is ("k", "").
Query parse_query(std::string_view raw);

}  // namespace nsq::http::detail
