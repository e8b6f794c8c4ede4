#include "cluster/topology.h"

#include <rapidjson/document.h>

#include <algorithm>

#include "nsq/json/writer.h"
#include "nsq/utf8.h"

namespace nsq::nsqd::cluster {
namespace {

void append_list(std::string& out, std::string_view key, const std::vector<std::string>& list) {
  json::append_key(out, key);
  out += '[';
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    json::append_string(out, list[i]);
  }
  out += ']';
}

void append_string_field(std::string& out, std::string_view key, std::string_view value) {
  json::append_key(out, key);
  json::append_string(out, value);
}

tl::expected<rapidjson::Document, std::string> parse(std::string_view json, const char* what) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(json.data(),
                                                                                    json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return tl::unexpected(std::string(what) + " is no JSON object");
  }
  return doc;
}

// RapidJSON 1.1 decodes a lone surrogate escape ("\udc00") to bytes that
// are no UTF-8 even with kParseValidateEncodingFlag, so each string is
// checked once decoded.
bool read_text(const rapidjson::Value& v, std::string& out) {
  if (!v.IsString()) return false;
  const std::string_view text(v.GetString(), v.GetStringLength());
  if (!utf8::valid(text)) return false;
  out.assign(text);
  return true;
}

// A string member; absent is empty.
bool read_string(const rapidjson::Value& object, const char* name, std::string& out) {
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() || read_text(it->value, out);
}

bool read_list(const rapidjson::Value& object, const char* name, std::vector<std::string>& out) {
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd()) return true;
  if (!it->value.IsArray()) return false;
  for (const auto& v : it->value.GetArray()) {
    if (!read_text(v, out.emplace_back())) return false;
  }
  return true;
}

}  // namespace

std::string encode(const NodeInfo& node) {
  std::string out = "{";
  append_string_field(out, "tcp_address", node.tcp_address);
  out += ',';
  append_string_field(out, "http_address", node.http_address);
  out += ',';
  append_string_field(out, "version", node.version);
  out += '}';
  return out;
}

std::string encode(const Placement& placement) {
  std::string out = "{";
  append_list(out, "replicas", placement.replicas);
  out += ',';
  json::append_key(out, "epoch");
  json::append_int(out, placement.epoch);
  out += ',';
  append_string_field(out, "leader", placement.leader);
  out += ',';
  append_list(out, "isr", placement.isr);
  out += ',';
  json::append_key(out, "id_base");
  json::append_int(out, placement.id_base);
  out += '}';
  return out;
}

tl::expected<NodeInfo, std::string> decode_node(std::string_view json) {
  auto doc = parse(json, "a node's value");
  if (!doc) return tl::unexpected(doc.error());
  NodeInfo node;
  if (!read_string(*doc, "tcp_address", node.tcp_address) ||
      !read_string(*doc, "http_address", node.http_address) ||
      !read_string(*doc, "version", node.version)) {
    return tl::unexpected(std::string("a node's value has a field of the wrong type"));
  }
  return node;
}

tl::expected<Placement, std::string> decode_placement(std::string_view json) {
  auto doc = parse(json, "a topic's placement");
  if (!doc) return tl::unexpected(doc.error());
  Placement p;
  const auto epoch = doc->FindMember("epoch");
  if (epoch == doc->MemberEnd() || !epoch->value.IsInt64() || epoch->value.GetInt64() < 1) {
    return tl::unexpected(std::string("a topic's placement has no epoch"));
  }
  p.epoch = epoch->value.GetInt64();
  if (!read_list(*doc, "replicas", p.replicas) || !read_string(*doc, "leader", p.leader) ||
      !read_list(*doc, "isr", p.isr)) {
    return tl::unexpected(std::string("a topic's placement has a field of the wrong type"));
  }
  if (p.replicas.empty()) return tl::unexpected(std::string("a topic's placement has no replica"));
  if (const auto base = doc->FindMember("id_base"); base != doc->MemberEnd()) {
    if (!base->value.IsUint64()) {
      return tl::unexpected(std::string("a topic's placement has a field of the wrong type"));
    }
    p.id_base = base->value.GetUint64();
  }
  return p;
}

View read_view(const Keys& keys, const etcd::RangeResult& range) {
  View view;
  view.revision = range.revision;
  const std::string nodes = keys.prefix + "nodes/";
  const std::string topics = keys.prefix + "topics/";
  const std::string leaders = keys.prefix + "leaders/";
  for (const auto& kv : range.kvs) {
    const std::string_view key = kv.key;
    auto under = [&](const std::string& folder) {
      return key.size() > folder.size() && key.starts_with(folder);
    };
    if (under(nodes)) {
      auto node = decode_node(kv.value);
      if (!node) {
        view.errors.push_back(kv.key + ": " + node.error());
        continue;
      }
      view.nodes.emplace(key.substr(nodes.size()), std::move(*node));
    } else if (under(topics)) {
      auto placement = decode_placement(kv.value);
      if (!placement) {
        view.errors.push_back(kv.key + ": " + placement.error());
        continue;
      }
      view.topics.emplace(key.substr(topics.size()),
                          View::Topic{std::move(*placement), kv.mod_revision});
    } else if (under(leaders)) {
      view.leaders.emplace(key.substr(leaders.size()), kv.value);
    }
  }
  return view;
}

std::vector<Role> roles_of(const View& view, const std::string& node) {
  std::vector<Role> roles;
  for (const auto& [name, t] : view.topics) {
    const Placement& p = t.placement;
    if (!contains(p.replicas, node)) continue;
    Role& r = roles.emplace_back();
    r.topic = name;
    r.epoch = static_cast<std::uint32_t>(p.epoch);
    if (auto led = view.leaders.find(name); led != view.leaders.end()) r.leader_id = led->second;
    r.leader = r.leader_id == node && p.leader == node;
    if (auto n = view.nodes.find(r.leader_id); n != view.nodes.end()) {
      r.leader_http = n->second.http_address;
    }
    r.replicas = p.replicas;
    r.isr = p.isr;
    r.id_base = p.id_base;
  }
  return roles;
}

std::vector<std::string> choose_replicas(const View& view, const std::string& creator, int factor) {
  std::map<std::string, int> led;
  for (const auto& [id, node] : view.nodes) led[id] = 0;
  for (const auto& [topic, t] : view.topics) {
    if (auto it = led.find(t.placement.leader); it != led.end()) ++it->second;
  }
  std::vector<std::pair<int, std::string>> others;
  for (const auto& [id, count] : led) {
    if (id != creator) others.emplace_back(count, id);
  }
  std::sort(others.begin(), others.end());
  std::vector<std::string> replicas{creator};
  for (const auto& [count, id] : others) {
    if (static_cast<int>(replicas.size()) >= factor) break;
    if (!contains(replicas, id)) replicas.push_back(id);
  }
  return replicas;
}

}  // namespace nsq::nsqd::cluster
