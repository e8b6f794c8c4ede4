#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "nsq/flags/go_strconv.h"
#include "nsq/stats/json.h"
#include "stats/json_fields.h"

namespace nsq::stats {
namespace {

using rapidjson::Value;

// A number as the integer type T: exact when it fits, a fraction dropped,
// out of range clamped (a cast would be undefined).
template <class T>
T integer(const Value& n) {
  if (n.IsInt64()) return static_cast<T>(n.GetInt64());
  if (n.IsUint64()) return static_cast<T>(n.GetUint64());
  const double d = n.GetDouble();
  if (d <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (d >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(d);
}

// Builds the document with numbers converted from their text: integers as
// int64 (else uint64), the rest as Go's strconv.ParseFloat reads them (exact;
// an overflow is an error). RapidJSON 1.1.0's own exact conversion passes a
// zero significand to __builtin_clzll for a 0 with a large exponent.
class ExactNumbers {
 public:
  explicit ExactNumbers(rapidjson::Document& doc) : doc_(doc) {}

  bool RawNumber(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    const char* end = text + length;
    std::int64_t i = 0;
    if (auto r = std::from_chars(text, end, i); r.ec == std::errc() && r.ptr == end) {
      // "-0" is how Go writes a float64's negative zero.
      return i == 0 && text[0] == '-' ? doc_.Double(-0.0) : doc_.Int64(i);
    }
    std::uint64_t u = 0;
    if (auto r = std::from_chars(text, end, u); r.ec == std::errc() && r.ptr == end) {
      return doc_.Uint64(u);
    }
    auto d = flags::parse_go_float(std::string_view(text, length));
    return d && doc_.Double(*d);
  }
  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  // Numbers all come as RawNumber (kParseNumbersAsStringsFlag).
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(std::int64_t) { return false; }
  bool Uint64(std::uint64_t) { return false; }
  bool Double(double) { return false; }
  bool String(const char* s, rapidjson::SizeType length, bool copy) {
    return doc_.String(s, length, copy);
  }
  bool StartObject() { return doc_.StartObject(); }
  bool Key(const char* s, rapidjson::SizeType length, bool copy) {
    return doc_.Key(s, length, copy);
  }
  bool EndObject(rapidjson::SizeType members) { return doc_.EndObject(members); }
  bool StartArray() { return doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return doc_.EndArray(elements); }

 private:
  rapidjson::Document& doc_;
};

// Fills the model from one JSON object, key by key as json_fields lists them.
class Reader {
 public:
  // include_clients: the Snapshot's flag, cleared by a "clients":null.
  Reader(const Value& object, bool* include_clients)
      : object_(object), include_clients_(include_clients) {}

  void value(const char* key, std::string& v) {
    if (const Value* m = member(key); m != nullptr && m->IsString()) {
      v.assign(m->GetString(), m->GetStringLength());
    }
  }
  void value(const char* key, bool& v) {
    if (const Value* m = member(key); m != nullptr && m->IsBool()) v = m->GetBool();
  }
  void value(const char* key, double& v) {
    if (const Value* m = member(key); m != nullptr && m->IsNumber()) v = m->GetDouble();
  }
  template <class T>
  requires std::is_integral_v<T>
  void value(const char* key, T& v) {
    if (const Value* m = member(key); m != nullptr && m->IsNumber()) v = integer<T>(*m);
  }

  template <class T>
  void omit_empty(const char* key, T& v) {
    value(key, v);
  }
  template <class T>
  void omit_empty(const char* key, std::vector<T>& v) {
    list(key, v);
  }

  template <class T>
  void object(const char* key, T& v) {
    if (const Value* m = member(key); m != nullptr && m->IsObject()) read(*m, v);
  }

  template <class T>
  void list(const char* key, std::vector<T>& v) {
    const Value* m = member(key);
    if (m == nullptr || !m->IsArray()) return;
    for (const auto& element : m->GetArray()) {
      if (!element.IsObject()) continue;
      read(element, v.emplace_back());
    }
  }

  template <class T, class Flag>
  void nullable(const char* key, std::vector<T>& v, json_fields::NullWhen<Flag> null) {
    const Value* m = member(key);
    if (m == nullptr) return;
    if (m->IsNull()) {
      null.flag = null.value;
    } else if (m->IsArray()) {
      null.flag = !null.value;
      list(key, v);
    }
  }

  template <class T>
  void optional(const char* key, std::optional<T>& v) {
    if (const Value* m = member(key); m != nullptr && m->IsObject()) read(*m, v.emplace());
  }

  void strings(const char* key, std::vector<std::string>& v) {
    const Value* m = member(key);
    if (m == nullptr || !m->IsArray()) return;
    for (const auto& element : m->GetArray()) {
      if (element.IsString()) v.emplace_back(element.GetString(), element.GetStringLength());
    }
  }

  void counts(const char* key, std::vector<std::pair<std::string, std::int64_t>>& v) {
    const Value* m = member(key);
    if (m == nullptr || !m->IsObject()) return;
    for (const auto& [name, n] : m->GetObject()) {
      if (n.IsNumber()) {
        v.emplace_back(std::string(name.GetString(), name.GetStringLength()),
                       integer<std::int64_t>(n));
      }
    }
  }

  void clients(const char* key, std::vector<Client>& v) {
    if (const Value* m = member(key); m != nullptr && m->IsNull()) *include_clients_ = false;
    list(key, v);
  }
  void producers(const char* key, std::vector<Client>& v) { list(key, v); }

 private:
  const Value* member(const char* key) const {
    auto it = object_.FindMember(key);
    return it == object_.MemberEnd() ? nullptr : &it->value;
  }

  template <class T>
  void read(const Value& object, T& v) {
    Reader nested(object, include_clients_);
    json_fields::visit(v, nested);
  }

  const Value& object_;
  bool* include_clients_;
};

}  // namespace

tl::expected<Snapshot, std::string> parse_stats_json(std::string_view body) {
  rapidjson::Document doc;
  rapidjson::ParseResult result;
  // Iterative: a deeply nested answer cannot exhaust the stack.
  auto parse = [&](rapidjson::Document& d) {
    rapidjson::MemoryStream bytes(body.data(), body.size());
    rapidjson::Reader reader;
    ExactNumbers handler(d);
    result = reader.Parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseIterativeFlag>(
        bytes, handler);
    return !result.IsError();
  };
  doc.Populate(parse);
  if (result.IsError()) {
    return tl::unexpected(std::string("invalid JSON: ") +
                          rapidjson::GetParseError_En(result.Code()));
  }
  if (!doc.IsObject()) return tl::unexpected(std::string("invalid JSON: not an object"));
  Snapshot s;
  Reader reader(doc, &s.include_clients);
  json_fields::visit(s, reader);
  return s;
}

}  // namespace nsq::stats
