#include "go_json_encoder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "nsq/json/writer.h"

namespace nsq::tools::to_nsq_bridge {
namespace {

void append_number(std::string& out, const rapidjson::Value& v) {
  if (v.IsInt64()) {
    json::append_int(out, v.GetInt64());
  } else if (v.IsUint64()) {
    json::append_int(out, v.GetUint64());
  } else {
    double d = v.GetDouble();
    if (std::trunc(d) == d && std::fabs(d) < 9.2e18) {
      json::append_int(out, static_cast<std::int64_t>(d));
    } else {
      json::append_float(out, d);
    }
  }
}

}  // namespace

void append_go_json(std::string& out, const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      break;
    case rapidjson::kFalseType:
      out += "false";
      break;
    case rapidjson::kTrueType:
      out += "true";
      break;
    case rapidjson::kStringType:
      json::append_string(out, std::string_view(value.GetString(), value.GetStringLength()));
      break;
    case rapidjson::kNumberType:
      append_number(out, value);
      break;
    case rapidjson::kArrayType: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value.GetArray()) {
        if (!first) out.push_back(',');
        first = false;
        append_go_json(out, item);
      }
      out.push_back(']');
      break;
    }
    case rapidjson::kObjectType: {
      // Go decodes into a map (the last duplicate key wins) and marshals
      // its keys sorted.
      std::vector<std::pair<std::string_view, const rapidjson::Value*>> members;
      for (const auto& m : value.GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        auto it = std::find_if(members.begin(), members.end(),
                               [&](const auto& p) { return p.first == key; });
        if (it != members.end()) {
          it->second = &m.value;
        } else {
          members.emplace_back(key, &m.value);
        }
      }
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out.push_back('{');
      bool first = true;
      for (const auto& [key, member] : members) {
        if (!first) out.push_back(',');
        first = false;
        json::append_key(out, key);
        append_go_json(out, *member);
      }
      out.push_back('}');
      break;
    }
  }
}

}  // namespace nsq::tools::to_nsq_bridge
