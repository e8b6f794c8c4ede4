#include "lookup/lookupd_parse.h"

#include <rapidjson/document.h>

namespace nsq::nsqd {

std::optional<LookupdPeerInfo> parse_lookupd_identify(std::string_view response) {
  if (response == "E_INVALID") return std::nullopt;
  rapidjson::Document doc;
  doc.Parse(response.data(), response.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  LookupdPeerInfo info;
  if (auto b = doc.FindMember("broadcast_address"); b != doc.MemberEnd() && b->value.IsString()) {
    info.broadcast_address = b->value.GetString();
  }
  // A port out of range would wrap when the HTTP client narrows it to 16
  // bits and query some other port: treat it as unknown instead.
  if (auto h = doc.FindMember("http_port"); h != doc.MemberEnd() && h->value.IsInt()) {
    int port = h->value.GetInt();
    if (port > 0 && port <= 65535) info.http_port = port;
  }
  return info;
}

std::vector<std::string> parse_lookupd_channels(std::string_view body) {
  std::vector<std::string> names;
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return names;
  auto it = doc.FindMember("channels");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return names;
  for (const auto& c : it->value.GetArray()) {
    if (c.IsString()) names.emplace_back(c.GetString(), c.GetStringLength());
  }
  return names;
}

}  // namespace nsq::nsqd
