#include "core/metadata.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "nsq/go_json.h"

namespace nsq::nsqd::metadata {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using Error = tl::unexpected<std::string>;

void write_string(Writer& w, const std::string& s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

}  // namespace

std::string encode(const Topology& topology) {
  rapidjson::StringBuffer buf;
  Writer w(buf);
  w.StartObject();
  w.Key("topics");
  if (topology.topics.empty()) {
    w.Null();
  } else {
    w.StartArray();
    for (const TopicEntry& t : topology.topics) {
      w.StartObject();
      w.Key("name");
      write_string(w, t.name);
      w.Key("paused");
      w.Bool(t.paused);
      if (!t.settings.empty()) {
        w.Key("settings");
        w.RawValue(t.settings.data(), t.settings.size(), rapidjson::kObjectType);
      }
      w.Key("channels");
      if (t.channels.empty()) {
        w.Null();
      } else {
        w.StartArray();
        for (const ChannelEntry& c : t.channels) {
          w.StartObject();
          w.Key("name");
          write_string(w, c.name);
          w.Key("paused");
          w.Bool(c.paused);
          if (!c.settings.empty()) {
            w.Key("settings");
            w.RawValue(c.settings.data(), c.settings.size(), rapidjson::kObjectType);
          }
          w.EndObject();
        }
        w.EndArray();
      }
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("version");
  write_string(w, topology.version);
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

namespace {

// A Go slice as json.Unmarshal fills it. A list decoded over one already
// decoded (a key given twice) decodes its elements into the old ones
// (merging objects), up to the largest length seen: reflect keeps the backing
// array. null or [] drops the array.
template <class T>
struct GoSlice {
  std::vector<T> backing;  // grows only, until null or []
  std::size_t len = 0;

  void start() { len = 0; }
  T& next() {
    if (len == backing.size()) backing.emplace_back();
    return backing[len++];
  }
  void finish() {
    if (len == 0) backing.clear();
  }
  void set_null() {
    backing.clear();
    len = 0;
  }
  std::vector<T> take() && {
    backing.resize(len);
    return std::move(backing);
  }
};

struct ChannelSlot {
  std::string name;
  bool paused = false;
};
struct TopicSlot {
  std::string name;
  bool paused = false;
  GoSlice<ChannelSlot> channels;
};
struct MetadataSlot {
  GoSlice<TopicSlot> topics;
  std::string version = "1.3.0";
};

// Where the next JSON value goes, and Go's name for it in a type error.
struct Target {
  enum Kind { skip, metadata, topic, channel, topics, channels, string, boolean } kind = skip;
  void* ptr = nullptr;
  const char* go_name = nullptr;  // "Go value of type ..." / "Go struct field ..."
};

// SAX events -> MetadataSlot with Go's json.Unmarshal rules: keys matched as
// Go does (case-insensitively), unknown keys skipped, null a no-op (an empty
// list for a list), a value of the wrong type an error that does not stop
// the parse (a later syntax error is reported instead, as Go's checkValid
// runs first), nesting limited to go_json::kMaxDepth. Iterative: no recursion.
class MetadataHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, MetadataHandler> {
 public:
  using SizeType = rapidjson::SizeType;

  MetadataSlot& result() { return metadata_; }
  const std::string& type_error() const { return type_error_; }
  char depth_exceeded() const { return depth_exceeded_; }  // '[' or '{', or 0

  bool Null() {
    Target t = next_target();
    if (t.kind == Target::topics) static_cast<GoSlice<TopicSlot>*>(t.ptr)->set_null();
    if (t.kind == Target::channels) static_cast<GoSlice<ChannelSlot>*>(t.ptr)->set_null();
    return true;
  }

  bool Bool(bool b) {
    Target t = next_target();
    if (t.kind == Target::boolean) {
      *static_cast<bool*>(t.ptr) = b;
    } else {
      mismatch("bool", t);
    }
    return true;
  }

  bool RawNumber(const char*, SizeType, bool) {
    mismatch("number", next_target());
    return true;
  }

  bool String(const char* s, SizeType len, bool) {
    Target t = next_target();
    if (t.kind == Target::string) {
      static_cast<std::string*>(t.ptr)->assign(s, len);
    } else {
      mismatch("string", t);
    }
    return true;
  }

  bool StartObject() {
    if (!deeper('{')) return false;
    Target t = next_target();
    switch (t.kind) {
      case Target::metadata:
      case Target::topic:
      case Target::channel:
        frames_.push_back({t.kind, t.ptr, Field::none});
        break;
      default:
        mismatch("object", t);
        frames_.push_back({Target::skip, nullptr, Field::none});
    }
    return true;
  }

  bool Key(const char* s, SizeType len, bool) {
    Frame& f = frames_.back();
    const std::string_view key(s, len);
    auto is = [&](std::string_view name) { return go_json::key_matches(key, name); };
    f.field = Field::none;
    if (f.kind == Target::metadata) {
      if (is("topics")) f.field = Field::topics;
      if (is("version")) f.field = Field::version;
    } else if (f.kind == Target::topic || f.kind == Target::channel) {
      if (is("name")) f.field = Field::name;
      if (is("paused")) f.field = Field::paused;
      if (f.kind == Target::topic && is("channels")) f.field = Field::channels;
    }
    return true;
  }

  bool EndObject(SizeType) {
    frames_.pop_back();
    --depth_;
    return true;
  }

  bool StartArray() {
    if (!deeper('[')) return false;
    Target t = next_target();
    if (t.kind == Target::topics) {
      static_cast<GoSlice<TopicSlot>*>(t.ptr)->start();
    } else if (t.kind == Target::channels) {
      static_cast<GoSlice<ChannelSlot>*>(t.ptr)->start();
    } else {
      mismatch("array", t);
      t = Target{};
    }
    frames_.push_back({t.kind, t.ptr, Field::none});
    return true;
  }

  bool EndArray(SizeType) {
    const Frame& f = frames_.back();
    if (f.kind == Target::topics) static_cast<GoSlice<TopicSlot>*>(f.ptr)->finish();
    if (f.kind == Target::channels) static_cast<GoSlice<ChannelSlot>*>(f.ptr)->finish();
    frames_.pop_back();
    --depth_;
    return true;
  }

  // Int/Uint/Double never fire with kParseNumbersAsStringsFlag.
  bool Default() { return false; }

 private:
  enum class Field { none, topics, version, name, paused, channels };

  // An open object or list, and for an object the field its current key names.
  struct Frame {
    Target::Kind kind;  // skip: a value being ignored
    void* ptr;
    Field field;
  };

  bool deeper(char c) {
    if (++depth_ <= go_json::kMaxDepth) return true;
    depth_exceeded_ = c;
    return false;
  }

  // The target of the value that starts now: called once per value, as a
  // list element is appended when it starts (null or not).
  Target next_target() {
    if (frames_.empty()) return {Target::metadata, &metadata_, "Go value of type nsqd.Metadata"};
    const Frame& f = frames_.back();
    switch (f.kind) {
      case Target::metadata: {
        auto* m = static_cast<MetadataSlot*>(f.ptr);
        if (f.field == Field::topics) {
          return {Target::topics, &m->topics,
                  "Go struct field Metadata.topics of type []nsqd.TopicMetadata"};
        }
        if (f.field == Field::version) {
          return {Target::string, &m->version, "Go struct field Metadata.version of type string"};
        }
        return {};
      }
      case Target::topic: {
        auto* t = static_cast<TopicSlot*>(f.ptr);
        if (f.field == Field::name) {
          return {Target::string, &t->name,
                  "Go struct field TopicMetadata.topics.name of type string"};
        }
        if (f.field == Field::paused) {
          return {Target::boolean, &t->paused,
                  "Go struct field TopicMetadata.topics.paused of type bool"};
        }
        if (f.field == Field::channels) {
          return {Target::channels, &t->channels,
                  "Go struct field TopicMetadata.topics.channels of type []nsqd.ChannelMetadata"};
        }
        return {};
      }
      case Target::channel: {
        auto* c = static_cast<ChannelSlot*>(f.ptr);
        if (f.field == Field::name) {
          return {Target::string, &c->name,
                  "Go struct field ChannelMetadata.topics.channels.name of type string"};
        }
        if (f.field == Field::paused) {
          return {Target::boolean, &c->paused,
                  "Go struct field ChannelMetadata.topics.channels.paused of type bool"};
        }
        return {};
      }
      case Target::topics:
        return {Target::topic, &static_cast<GoSlice<TopicSlot>*>(f.ptr)->next(),
                "Go struct field Metadata.topics of type nsqd.TopicMetadata"};
      case Target::channels:
        return {Target::channel, &static_cast<GoSlice<ChannelSlot>*>(f.ptr)->next(),
                "Go struct field TopicMetadata.topics.channels of type nsqd.ChannelMetadata"};
      default:
        return {};
    }
  }

  // A value of JSON kind `kind` for target `t`: an error unless skipped.
  // Go reports the first.
  void mismatch(const char* kind, const Target& t) {
    if (t.kind == Target::skip || !type_error_.empty()) return;
    type_error_ = std::string("json: cannot unmarshal ") + kind + " into " + t.go_name;
  }

  MetadataSlot metadata_;
  std::vector<Frame> frames_;
  int depth_ = 0;
  char depth_exceeded_ = 0;
  std::string type_error_;
};

bool is_json_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Go's quoteChar: 'x', '\'', '"', or "\x01" for anything unprintable.
std::string quote_char(char c) {
  if (c == '\'') return R"('\'')";
  if (c == '"') return R"('"')";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  return std::string("'\\x") + kHex[u >> 4] + kHex[u & 0xf] + "'";
}

Topology to_topology(MetadataSlot&& m) {
  Topology out;
  out.version = std::move(m.version);
  for (TopicSlot& t : std::move(m.topics).take()) {
    TopicEntry entry{std::move(t.name), t.paused, {}, {}};
    for (ChannelSlot& c : std::move(t.channels).take()) {
      entry.channels.push_back(
          {std::move(c.name), c.paused, {}});  // a nameless one is skipped by the loader
    }
    out.topics.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

tl::expected<Topology, std::string> decode(std::string_view json) {
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag |
                              rapidjson::kParseNumbersAsStringsFlag |
                              rapidjson::kParseStopWhenDoneFlag;
  // Both rewrites keep every offset (and the kind of every value).
  std::optional<std::string> replaced = go_json::replace_lone_surrogate_escapes(json);
  if (replaced) json = *replaced;
  // nsqd.dat has no number field (a number is skipped or a type error):
  // every number can go, the ones RapidJSON would refuse with them.
  std::optional<std::string> zeroed =
      go_json::replace_numbers(json, [](std::string_view) { return true; });
  if (zeroed) json = *zeroed;
  MetadataHandler handler;
  rapidjson::MemoryStream stream(json.data(), json.size());
  rapidjson::Reader reader;
  const rapidjson::ParseResult parsed = reader.Parse<kFlags>(stream, handler);
  if (parsed.IsError()) {
    const std::size_t at = parsed.Offset();
    if (handler.depth_exceeded()) {
      return Error("invalid character " + quote_char(handler.depth_exceeded()) +
                   " exceeded max depth at offset " + std::to_string(at));
    }
    // RapidJSON takes a NUL byte for the end of the input.
    if (at < json.size() && json[at] == '\0') {
      return Error("invalid character '\\x00' at offset " + std::to_string(at));
    }
    if (at >= json.size()) return Error("unexpected end of JSON input");
    return Error(std::string(rapidjson::GetParseError_En(parsed.Code())) + " at offset " +
                 std::to_string(at));
  }
  for (std::size_t i = stream.Tell(); i < json.size(); ++i) {
    if (!is_json_space(json[i])) {
      return Error("invalid character " + quote_char(json[i]) +
                   " after top-level value at offset " + std::to_string(i));
    }
  }
  if (!handler.type_error().empty()) return Error(handler.type_error());
  return to_topology(std::move(handler.result()));
}

namespace {

std::string object_text(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

const rapidjson::Value* member(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(key);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

}  // namespace

std::vector<StoredSettings> decode_settings(std::string_view json) {
  std::vector<StoredSettings> out;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  const rapidjson::Value* topics = doc.HasParseError() ? nullptr : member(doc, "topics");
  if (topics == nullptr || !topics->IsArray()) return out;
  for (const auto& t : topics->GetArray()) {
    const rapidjson::Value* name = member(t, "name");
    if (name == nullptr || !name->IsString()) continue;
    const std::string topic(name->GetString(), name->GetStringLength());
    if (const rapidjson::Value* s = member(t, "settings"); s && s->IsObject()) {
      out.push_back({topic, "", object_text(*s)});
    }
    const rapidjson::Value* channels = member(t, "channels");
    if (channels == nullptr || !channels->IsArray()) continue;
    for (const auto& c : channels->GetArray()) {
      const rapidjson::Value* cname = member(c, "name");
      const rapidjson::Value* s = member(c, "settings");
      if (cname == nullptr || !cname->IsString() || s == nullptr || !s->IsObject()) continue;
      out.push_back(
          {topic, std::string(cname->GetString(), cname->GetStringLength()), object_text(*s)});
    }
  }
  return out;
}

}  // namespace nsq::nsqd::metadata
