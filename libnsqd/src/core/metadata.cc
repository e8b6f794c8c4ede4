#include "core/metadata.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace nsq::nsqd::metadata {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

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

using Value = rapidjson::Value;
using Error = tl::unexpected<std::string>;

// Go's json.Unmarshal into nsqd's struct: null leaves a field empty, a wrong
// type is an error, unknown keys are ignored.
bool read_string(const Value& obj, const char* key, std::string& out, std::string& error) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return true;
  if (!it->value.IsString()) {
    error = std::string("\"") + key + "\" is not a string";
    return false;
  }
  out.assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

bool read_bool(const Value& obj, const char* key, bool& out, std::string& error) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return true;
  if (!it->value.IsBool()) {
    error = std::string("\"") + key + "\" is not a bool";
    return false;
  }
  out = it->value.GetBool();
  return true;
}

// A list member: null or absent is empty; anything but a list is an error.
const Value* read_list(const Value& obj, const char* key, std::string& error) {
  static const Value empty(rapidjson::kArrayType);
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return &empty;
  if (!it->value.IsArray()) {
    error = std::string("\"") + key + "\" is not a list";
    return nullptr;
  }
  return &it->value;
}

}  // namespace

tl::expected<Topology, std::string> decode(std::string_view json) {
  // RapidJSON takes a NUL byte for the end of input; JSON never holds one raw.
  if (auto nul = json.find('\0'); nul != std::string_view::npos) {
    return Error("invalid character NUL at offset " + std::to_string(nul));
  }
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return Error(std::string(rapidjson::GetParseError_En(doc.GetParseError())) + " at offset " +
                 std::to_string(doc.GetErrorOffset()));
  }
  Topology out;
  if (doc.IsNull()) return out;
  if (!doc.IsObject()) return Error("not a JSON object");
  std::string error;
  if (!read_string(doc, "version", out.version, error)) return Error(error);
  const Value* topics = read_list(doc, "topics", error);
  if (!topics) return Error(error);
  for (const Value& t : topics->GetArray()) {
    TopicEntry entry;
    if (t.IsObject()) {
      if (!read_string(t, "name", entry.name, error) || !read_bool(t, "paused", entry.paused, error)) {
        return Error(error);
      }
      const Value* channels = read_list(t, "channels", error);
      if (!channels) return Error(error);
      for (const Value& c : channels->GetArray()) {
        ChannelEntry ce;
        if (c.IsObject()) {
          if (!read_string(c, "name", ce.name, error) || !read_bool(c, "paused", ce.paused, error)) {
            return Error(error);
          }
        } else if (!c.IsNull()) {
          return Error("a channel is not an object");
        }
        entry.channels.push_back(std::move(ce));  // a nameless one is skipped by the loader
      }
    } else if (!t.IsNull()) {
      return Error("a topic is not an object");
    }
    out.topics.push_back(std::move(entry));
  }
  return out;
}

}  // namespace nsq::nsqd::metadata
