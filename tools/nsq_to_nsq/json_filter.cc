#include "json_filter.h"

#include <rapidjson/document.h>

#include <cerrno>
#include <cstdlib>

#include "go_json_encoder.h"

namespace nsq::tools::to_nsq_bridge {
namespace {

using Action = FilterDecision::Action;

bool parse_float(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno != ERANGE;
}

const rapidjson::Value* find_member(const rapidjson::Value& object, const std::string& name) {
  if (!object.IsObject()) return nullptr;
  const rapidjson::Value* found = nullptr;
  // The last duplicate wins, as in Go's map decoding.
  for (const auto& m : object.GetObject()) {
    if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == name) found = &m.value;
  }
  return found;
}

}  // namespace

JsonFilter::JsonFilter(std::string require_field, std::string require_value,
                       std::vector<std::string> whitelist_fields)
    : require_field_(std::move(require_field)),
      require_value_(std::move(require_value)),
      whitelist_(std::move(whitelist_fields)) {
  value_is_number_ = parse_float(require_value_, &value_number_);
}

FilterDecision JsonFilter::apply(std::string_view body) const {
  if (!active()) return {Action::publish, std::string(body), {}};

  rapidjson::Document doc;
  // Go's json.Decoder reads one value and ignores what follows it.
  doc.Parse<rapidjson::kParseStopWhenDoneFlag>(body.data(), body.size());
  if (doc.HasParseError()) {
    return {Action::drop, {}, "ERROR: Unable to decode json: " + std::string(body)};
  }

  if (!require_field_.empty()) {
    const rapidjson::Value* value = find_member(doc, require_field_);
    if (value == nullptr) {
      if (!require_value_.empty()) {
        return {Action::requeue, {}, "ERROR: missing field to check required value"};
      }
      return {Action::drop, {}, {}};
    }
    if (!require_value_.empty()) {
      bool pass = false;
      if (value->IsString()) {
        pass = std::string_view(value->GetString(), value->GetStringLength()) == require_value_;
      } else if (value_is_number_) {
        pass = value->IsNumber() && value->GetDouble() == value_number_;
      }
      if (!pass) return {Action::drop, {}, {}};
    }
  }

  if (whitelist_.empty()) return {Action::publish, std::string(body), {}};
  if (!doc.IsObject()) {
    return {Action::requeue, {}, "ERROR: filterMessage() failed: json is not an object"};
  }
  // Build the subset as an object and encode it the Go way (keys sorted).
  rapidjson::Document subset(rapidjson::kObjectType);
  for (const auto& field : whitelist_) {
    if (find_member(subset, field) != nullptr) continue;
    if (const rapidjson::Value* value = find_member(doc, field)) {
      rapidjson::Value name(field.c_str(), static_cast<rapidjson::SizeType>(field.size()),
                            subset.GetAllocator());
      rapidjson::Value copy(*value, subset.GetAllocator());
      subset.AddMember(name, copy, subset.GetAllocator());
    }
  }
  std::string out;
  append_go_json(out, subset);
  return {Action::publish, std::move(out), {}};
}

}  // namespace nsq::tools::to_nsq_bridge
