#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>

// json.Unmarshal of one JSON object into a flat Go struct of strings, ints and
// bools, with Go 1.19's rules (the ones nsqd and nsqlookupd v1.3.0 apply to
// IDENTIFY and REGISTER bodies): keys matched as go_json::key_matches does,
// unknown keys and null ignored, a value of the wrong type or an int with a
// fraction, exponent or out of range refused, strings sanitised to valid
// UTF-8, a lone surrogate escape read as U+FFFD, numbers of any size accepted
// where ignored, nesting up to go_json::kMaxDepth, nothing after the object
// but white space.
namespace nsq::json {

struct GoInt {
  std::int64_t* value;
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
};

// One exported field of the Go struct: its JSON name and where its value goes.
struct GoField {
  std::string_view name;
  std::variant<std::string*, bool*, GoInt> target;
};

// Whether Go's json.Unmarshal would succeed; the fields are set as it sets
// them, also on failure (callers discard the result then).
bool decode_go_object(std::string_view json, std::span<const GoField> fields);

}  // namespace nsq::json
