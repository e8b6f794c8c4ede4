#pragma once

#include <rapidjson/document.h>

#include <string>

namespace nsq::tools::to_nsq_bridge {

// Appends `value` as Go's encoding/json would marshal the decoded value, so
// re-encoded messages look like the Go tool's: compact, object keys sorted,
// strings and floats as nsq/json/writer.h writes them; integers as written;
// a float with an integral value as an integer.
void append_go_json(std::string& out, const rapidjson::Value& value);

}  // namespace nsq::tools::to_nsq_bridge
