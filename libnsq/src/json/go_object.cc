// On RapidJSON's SAX reader: no DOM, no recursion (iterative parser), and
// numbers seen as text so int fields can refuse fractions and exponents as Go
// does.
#include "nsq/json/go_object.h"

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <optional>

#include "nsq/go_json.h"
#include "nsq/utf8.h"

namespace nsq::json {
namespace {

// A JSON number literal (already checked by RapidJSON) as Go's int: no
// fraction, no exponent, within range.
std::optional<std::int64_t> go_int(std::string_view raw, const GoInt& to) noexcept {
  if (raw.find_first_of(".eE") != std::string_view::npos) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (ec != std::errc() || end != raw.data() + raw.size() || v < to.min || v > to.max) {
    return std::nullopt;
  }
  return v;
}

// SAX events -> fields. Returning false aborts the parse (a decode error).
class GoObjectHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, GoObjectHandler> {
 public:
  using SizeType = rapidjson::SizeType;

  explicit GoObjectHandler(std::span<const GoField> fields) : fields_(fields) {}

  bool Null() { return true; }  // null leaves the field as it was, even at top level

  bool Bool(bool b) {
    if (!applies()) return depth_ > 0;
    auto* target = std::get_if<bool*>(&field_->target);
    if (!target) return false;
    **target = b;
    return true;
  }

  bool RawNumber(const char* s, SizeType len, bool /*copy*/) {
    if (!applies()) return depth_ > 0;
    const auto* target = std::get_if<GoInt>(&field_->target);
    if (!target) return false;
    const auto v = go_int(std::string_view(s, len), *target);
    if (!v) return false;
    *target->value = *v;
    return true;
  }

  bool String(const char* s, SizeType len, bool /*copy*/) {
    if (!applies()) return depth_ > 0;
    auto* target = std::get_if<std::string*>(&field_->target);
    if (!target) return false;
    **target = utf8::sanitize(std::string_view(s, len));
    return true;
  }

  bool StartObject() {
    if (depth_ == 1 && field_) return false;  // an object for a known field
    return ++depth_ <= go_json::kMaxDepth;
  }

  bool Key(const char* s, SizeType len, bool /*copy*/) {
    if (depth_ == 1) field_ = lookup(std::string_view(s, len));
    return true;
  }

  bool EndObject(SizeType /*members*/) {
    --depth_;
    return true;
  }

  bool StartArray() {
    if (depth_ == 0 || (depth_ == 1 && field_)) return false;
    return ++depth_ <= go_json::kMaxDepth;
  }

  bool EndArray(SizeType /*elements*/) {
    --depth_;
    return true;
  }

  // Int/Uint/Double never fire with kParseNumbersAsStringsFlag.
  bool Default() { return false; }

 private:
  const GoField* lookup(std::string_view key) const noexcept {
    for (const GoField& f : fields_) {
      if (go_json::key_matches(key, f.name)) return &f;
    }
    return nullptr;
  }

  // A scalar at depth 1 is the value of the current key; deeper ones belong
  // to an ignored value, and one at depth 0 means the document is no object.
  bool applies() const noexcept { return depth_ == 1 && field_; }

  std::span<const GoField> fields_;
  int depth_ = 0;
  const GoField* field_ = nullptr;
};

bool is_json_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

bool decode_go_object(std::string_view json, std::span<const GoField> fields) {
  constexpr unsigned kFlags = rapidjson::kParseDefaultFlags | rapidjson::kParseIterativeFlag |
                              rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseStopWhenDoneFlag;
  // Both rewrites keep what Go accepts and refuses (see go_json.h).
  std::optional<std::string> replaced = go_json::replace_lone_surrogate_escapes(json);
  if (replaced) json = *replaced;
  std::optional<std::string> tamed = go_json::tame_big_numbers(json);
  if (tamed) json = *tamed;
  GoObjectHandler handler(fields);
  rapidjson::MemoryStream stream(json.data(), json.size());
  rapidjson::Reader reader;
  if (reader.Parse<kFlags>(stream, handler).IsError()) return false;
  // Checked here rather than by RapidJSON, which stops at a NUL byte as if
  // the input ended there.
  for (std::size_t i = stream.Tell(); i < json.size(); ++i) {
    if (!is_json_space(json[i])) return false;
  }
  return true;
}

}  // namespace nsq::json
