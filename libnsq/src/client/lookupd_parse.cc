#include <rapidjson/document.h>

#include <charconv>

#include "lookupd_query.h"

// The pure half of lookupd_query.h (no I/O), so the fuzz build can take it alone.
namespace nsq::client {

tl::expected<LookupdEndpoint, std::string> parse_lookupd_address(std::string_view address) {
  std::string_view rest = address;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.find("://") != std::string_view::npos) {
    return tl::unexpected("unsupported lookupd address " + std::string(address));
  }
  LookupdEndpoint endpoint;
  auto slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos && rest.substr(slash) != "/")
    endpoint.path = std::string(rest.substr(slash));
  auto colon = hostport.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    return tl::unexpected("invalid lookupd address " + std::string(address));
  std::string_view host = hostport.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  std::string_view port = hostport.substr(colon + 1);
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535)
    return tl::unexpected("invalid lookupd address " + std::string(address));
  endpoint.host = std::string(host);
  endpoint.port = static_cast<uint16_t>(value);
  return endpoint;
}

tl::expected<std::vector<std::string>, std::string> parse_lookup_producers(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return tl::unexpected(std::string("invalid JSON"));
  const rapidjson::Value* root = &doc;
  if (auto data = doc.FindMember("data"); data != doc.MemberEnd() && data->value.IsObject())
    root = &data->value;
  auto producers = root->FindMember("producers");
  if (producers == root->MemberEnd() || !producers->value.IsArray())
    return tl::unexpected(std::string("no producers in the answer"));
  std::vector<std::string> out;
  for (const auto& p : producers->value.GetArray()) {
    if (!p.IsObject()) continue;
    auto addr = p.FindMember("broadcast_address");
    auto port = p.FindMember("tcp_port");
    if (addr == p.MemberEnd() || !addr->value.IsString() || port == p.MemberEnd() ||
        !port->value.IsInt())
      continue;
    std::string host(addr->value.GetString(), addr->value.GetStringLength());
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    out.push_back(host + ":" + std::to_string(port->value.GetInt()));
  }
  return out;
}

}  // namespace nsq::client
