#pragma once

#include <string>
#include <string_view>

#include "stats/stats.h"

// GET /stats?format=json: the body Go nsqd v1.3.0 writes, byte for byte
// (compact, keys in Go's struct order, Go's string escaping and float text).
namespace nsq::nsqd {

std::string render_stats_json(const stats::Snapshot& s);

// Pieces shared with other renderers, exposed for tests.
namespace json {

// Appends s as a JSON string the way Go's encoding/json (Go 1.21, HTML
// escaping on) writes it: \" \\ \n \r \t, other control bytes and < > & as
// \u00XX, U+2028/U+2029 as \u2028/\u2029, invalid UTF-8 bytes as \ufffd.
void append_string(std::string& out, std::string_view s);

// Appends a float64 as encoding/json does: shortest round-trip digits, plain
// decimal unless |v| < 1e-6 or |v| >= 1e21 (then 1e-7 / 1e+21). NaN and
// infinities (which Go refuses to encode) are written as 0.
void append_double(std::string& out, double v);

}  // namespace json
}  // namespace nsq::nsqd
