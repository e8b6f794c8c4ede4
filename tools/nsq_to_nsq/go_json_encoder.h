#pragma once

#include <rapidjson/document.h>

#include <string>

namespace nsq::tools::to_nsq_bridge {

// Appends `value` as Go's encoding/json would marshal the decoded value, so
// re-encoded messages look like the Go tool's: compact, object keys sorted,
// '<' '>' '&' U+2028 U+2029 and control bytes escaped as \uXXXX (\n \r \t
// short), invalid UTF-8 as \ufffd; integers as written; a float with an
// integral value as an integer, others in Go's shortest form ('f' for
// 1e-6 <= |x| < 1e21, else 'e' with a two-digit-minimum exponent trimmed:
// 1e-7, 1e+21).
void append_go_json(std::string& out, const rapidjson::Value& value);

// Go's float64 JSON text for a finite, non-integral-or-huge double.
std::string go_json_float(double value);

}  // namespace nsq::tools::to_nsq_bridge
