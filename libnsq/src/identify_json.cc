// IDENTIFY body decoding with Go encoding/json semantics, on RapidJSON's SAX
// reader: no DOM, no recursion (iterative parser), numbers seen as text so
// int fields can refuse fractions and exponents as Go does.
#include <charconv>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "nsq/error.h"
#include "nsq/go_json.h"
#include "nsq/identify.h"
#include "nsq/utf8.h"

namespace nsq {
namespace {

enum class Field {
  none,
  client_id,
  hostname,
  user_agent,
  heartbeat_interval,
  output_buffer_size,
  output_buffer_timeout,
  sample_rate,
  msg_timeout,
  deflate_level,
  feature_negotiation,
  tls_v1,
  snappy,
  deflate,
};

struct FieldName {
  std::string_view name;
  Field field;
};

constexpr FieldName kFields[] = {
    {"client_id", Field::client_id},
    {"hostname", Field::hostname},
    {"user_agent", Field::user_agent},
    {"heartbeat_interval", Field::heartbeat_interval},
    {"output_buffer_size", Field::output_buffer_size},
    {"output_buffer_timeout", Field::output_buffer_timeout},
    {"sample_rate", Field::sample_rate},
    {"msg_timeout", Field::msg_timeout},
    {"deflate_level", Field::deflate_level},
    {"feature_negotiation", Field::feature_negotiation},
    {"tls_v1", Field::tls_v1},
    {"snappy", Field::snappy},
    {"deflate", Field::deflate},
};

Field lookup_field(std::string_view key) noexcept {
  for (const FieldName& f : kFields) {
    if (go_json::key_matches(key, f.name)) return f.field;
  }
  return Field::none;
}

// A JSON number literal (already checked by RapidJSON) as Go's int: no
// fraction, no exponent, within range.
std::optional<int64_t> json_int(std::string_view raw, int64_t min, int64_t max) noexcept {
  if (raw.find_first_of(".eE") != std::string_view::npos) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (ec != std::errc() || end != raw.data() + raw.size() || v < min || v > max) {
    return std::nullopt;
  }
  return v;
}

// SAX events -> IdentifyRequest. Returning false aborts the parse (decode error).
class IdentifyHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, IdentifyHandler> {
 public:
  using SizeType = rapidjson::SizeType;

  explicit IdentifyHandler(IdentifyRequest& request) : request_(request) {}

  bool Null() { return true; }  // null leaves the default, even at top level

  bool Bool(bool b) {
    if (!applies()) return depth_ > 0;
    switch (field_) {
      case Field::feature_negotiation:
        request_.feature_negotiation = b;
        return true;
      case Field::tls_v1:
        request_.tls_v1 = b;
        return true;
      case Field::snappy:
        request_.snappy = b;
        return true;
      case Field::deflate:
        request_.deflate = b;
        return true;
      default:
        return false;
    }
  }

  bool RawNumber(const char* s, SizeType len, bool /*copy*/) {
    if (!applies()) return depth_ > 0;
    constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
    constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
    const std::string_view raw(s, len);
    int64_t* target = nullptr;
    int64_t min = kMin64, max = kMax64;
    switch (field_) {
      case Field::heartbeat_interval:
        target = &request_.heartbeat_interval;
        break;
      case Field::output_buffer_size:
        target = &request_.output_buffer_size;
        break;
      case Field::output_buffer_timeout:
        target = &request_.output_buffer_timeout;
        break;
      case Field::msg_timeout:
        target = &request_.msg_timeout;
        break;
      case Field::deflate_level:
        target = &request_.deflate_level;
        break;
      case Field::sample_rate:  // int32 in nsqd
        target = &request_.sample_rate;
        min = std::numeric_limits<int32_t>::min();
        max = std::numeric_limits<int32_t>::max();
        break;
      default:
        return false;
    }
    const auto v = json_int(raw, min, max);
    if (!v) return false;
    *target = *v;
    return true;
  }

  bool String(const char* s, SizeType len, bool /*copy*/) {
    if (!applies()) return depth_ > 0;
    std::string* target = nullptr;
    switch (field_) {
      case Field::client_id:
        target = &request_.client_id;
        break;
      case Field::hostname:
        target = &request_.hostname;
        break;
      case Field::user_agent:
        target = &request_.user_agent;
        break;
      default:
        return false;
    }
    *target = utf8::sanitize(std::string_view(s, len));
    return true;
  }

  bool StartObject() {
    if (depth_ == 1 && field_ != Field::none) return false;  // object for a known field
    return ++depth_ <= go_json::kMaxDepth;
  }

  bool Key(const char* s, SizeType len, bool /*copy*/) {
    if (depth_ == 1) field_ = lookup_field(std::string_view(s, len));
    return true;
  }

  bool EndObject(SizeType /*members*/) {
    --depth_;
    return true;
  }

  bool StartArray() {
    if (depth_ == 0 || (depth_ == 1 && field_ != Field::none)) return false;
    return ++depth_ <= go_json::kMaxDepth;
  }

  bool EndArray(SizeType /*elements*/) {
    --depth_;
    return true;
  }

  // Int/Uint/Double never fire with kParseNumbersAsStringsFlag.
  bool Default() { return false; }

 private:
  // A scalar at depth 1 is the value of the current key; deeper ones belong
  // to an ignored value, and one at depth 0 means the document is no object.
  bool applies() const noexcept { return depth_ == 1 && field_ != Field::none; }

  IdentifyRequest& request_;
  int depth_ = 0;
  Field field_ = Field::none;
};

bool is_json_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

Result<IdentifyRequest> parse_identify_json(std::string_view json) {
  constexpr unsigned kFlags = rapidjson::kParseDefaultFlags | rapidjson::kParseIterativeFlag |
                              rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseStopWhenDoneFlag;
  IdentifyRequest request;
  IdentifyHandler handler(request);
  // Both rewrites keep what Go accepts and refuses (see go_json.h).
  std::optional<std::string> replaced = go_json::replace_lone_surrogate_escapes(json);
  if (replaced) json = *replaced;
  std::optional<std::string> tamed = go_json::tame_big_numbers(json);
  if (tamed) json = *tamed;
  rapidjson::MemoryStream stream(json.data(), json.size());
  rapidjson::Reader reader;
  if (reader.Parse<kFlags>(stream, handler).IsError()) {
    return tl::unexpected(make_error_code(errc::bad_json));
  }
  // Checked here rather than by RapidJSON, which stops at a NUL byte as if
  // the input ended there.
  for (std::size_t i = stream.Tell(); i < json.size(); ++i) {
    if (!is_json_space(json[i])) return tl::unexpected(make_error_code(errc::bad_json));
  }
  return request;
}

}  // namespace nsq
