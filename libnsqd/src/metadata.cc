#include "metadata.h"

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

tl::expected<Topology, std::string> decode(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) {
    return tl::unexpected(std::string(rapidjson::GetParseError_En(doc.GetParseError())) +
                          " at offset " + std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject()) return tl::unexpected(std::string("not a JSON object"));
  Topology out;
  if (auto v = doc.FindMember("version"); v != doc.MemberEnd() && v->value.IsString()) {
    out.version = v->value.GetString();
  }
  auto topics = doc.FindMember("topics");
  if (topics == doc.MemberEnd() || topics->value.IsNull()) return out;
  if (!topics->value.IsArray()) return tl::unexpected(std::string("\"topics\" is not a list"));
  for (const auto& t : topics->value.GetArray()) {
    if (!t.IsObject()) return tl::unexpected(std::string("a topic is not an object"));
    TopicEntry entry;
    auto name = t.FindMember("name");
    if (name == t.MemberEnd() || !name->value.IsString()) {
      return tl::unexpected(std::string("a topic has no name"));
    }
    entry.name = name->value.GetString();
    if (auto p = t.FindMember("paused"); p != t.MemberEnd() && p->value.IsBool()) {
      entry.paused = p->value.GetBool();
    }
    auto channels = t.FindMember("channels");
    if (channels != t.MemberEnd() && channels->value.IsArray()) {
      for (const auto& c : channels->value.GetArray()) {
        if (!c.IsObject()) continue;
        auto cname = c.FindMember("name");
        if (cname == c.MemberEnd() || !cname->value.IsString()) continue;
        ChannelEntry ce{cname->value.GetString(), false};
        if (auto p = c.FindMember("paused"); p != c.MemberEnd() && p->value.IsBool()) {
          ce.paused = p->value.GetBool();
        }
        entry.channels.push_back(std::move(ce));
      }
    }
    out.topics.push_back(std::move(entry));
  }
  return out;
}

}  // namespace nsq::nsqd::metadata
