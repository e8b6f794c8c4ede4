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
#include "nsq/identify.h"
#include "utf8.h"

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

// Go (>= 1.21) matches a key to a field when both upper-case to the same
// runes. For our ASCII field names that is ASCII case folding plus two
// non-ASCII runes whose upper case is ASCII: U+0131 (dotless i -> I) and
// U+017F (long s -> S).
Field lookup_field(std::string_view key) noexcept {
  constexpr std::size_t kMaxFieldName = 32;
  char folded[kMaxFieldName];
  std::size_t n = 0;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (n == kMaxFieldName) return Field::none;
    char c = key[i];
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      const std::string_view rest = key.substr(i);
      if (rest.starts_with("\xc4\xb1")) {
        c = 'i';
      } else if (rest.starts_with("\xc5\xbf")) {
        c = 's';
      } else {
        return Field::none;
      }
      ++i;
    }
    folded[n++] = c;
  }
  const std::string_view k(folded, n);
  for (const FieldName& f : kFields) {
    if (f.name == k) return f.field;
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

  // Go's scanner refuses nesting deeper than this.
  static constexpr int kMaxDepth = 10000;

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
    *target = detail::sanitize_utf8(std::string_view(s, len));
    return true;
  }

  bool StartObject() {
    if (depth_ == 1 && field_ != Field::none) return false;  // object for a known field
    return ++depth_ <= kMaxDepth;
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
    return ++depth_ <= kMaxDepth;
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

// The UTF-16 code unit of the \uXXXX escape at json[at] ("\\u" then four hex
// digits), or -1.
int utf16_escape_at(std::string_view json, std::size_t at) noexcept {
  if (at + 6 > json.size() || json[at] != '\\' || json[at + 1] != 'u') return -1;
  int unit = 0;
  auto [end, ec] = std::from_chars(json.data() + at + 2, json.data() + at + 6, unit, 16);
  return ec == std::errc() && end == json.data() + at + 6 ? unit : -1;
}

bool is_high_surrogate(int u) noexcept { return u >= 0xD800 && u <= 0xDBFF; }
bool is_low_surrogate(int u) noexcept { return u >= 0xDC00 && u <= 0xDFFF; }

// Go's encoding/json decodes an escaped UTF-16 surrogate that is not half of
// a pair as U+FFFD; RapidJSON refuses the document. Such escapes are
// rewritten to \ufffd first; nullopt when there is none (the usual case).
std::optional<std::string> replace_lone_surrogate_escapes(std::string_view json) {
  std::optional<std::string> out;
  bool in_string = false;
  std::size_t copied = 0;  // json[0, copied) is in *out
  for (std::size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (!in_string) {
      in_string = c == '"';
      continue;
    }
    if (c == '"') {
      in_string = false;
    } else if (c == '\\') {
      int unit = utf16_escape_at(json, i);
      if (unit < 0) {
        ++i;  // a two-character escape (or a broken one, left for the parser)
        continue;
      }
      if (is_high_surrogate(unit) && is_low_surrogate(utf16_escape_at(json, i + 6))) {
        i += 11;  // a valid pair
        continue;
      }
      if (is_high_surrogate(unit) || is_low_surrogate(unit)) {
        if (!out) out.emplace();
        out->append(json.substr(copied, i - copied));
        out->append("\\ufffd");
        copied = i + 6;
      }
      i += 5;
    }
  }
  if (out) out->append(json.substr(copied));
  return out;
}

}  // namespace

Result<IdentifyRequest> parse_identify_json(std::string_view json) {
  constexpr unsigned kFlags = rapidjson::kParseDefaultFlags | rapidjson::kParseIterativeFlag |
                              rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseStopWhenDoneFlag;
  IdentifyRequest request;
  IdentifyHandler handler(request);
  std::optional<std::string> replaced = replace_lone_surrogate_escapes(json);
  if (replaced) json = *replaced;
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
