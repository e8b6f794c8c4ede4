#include "protocol/auth.h"

#include <rapidjson/document.h>

#include <cstdio>
#include <optional>

#include "nsq/http/client.h"

namespace nsq::nsqd::auth {

namespace {

// {"message": "TLS_REQUIRED", "https_port": N}
std::optional<std::uint16_t> https_port_of(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  auto it = doc.FindMember("https_port");
  if (it == doc.MemberEnd() || !it->value.IsInt()) return std::nullopt;
  int port = it->value.GetInt();
  if (port <= 0 || port > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(port);
}

}  // namespace

std::string query_string(std::string_view secret, std::string_view remote_ip, bool tls,
                         std::string_view common_name) {
  return "common_name=" + http::query_escape(common_name) +
         "&remote_ip=" + http::query_escape(remote_ip) + "&secret=" + http::query_escape(secret) +
         (tls ? "&tls=true" : "&tls=false");
}

namespace {

// GET over TLS with libnsq's client: the certificate checked against
// --tls-root-ca-file (or the system roots) and the host name, as Go does.
tl::expected<http::ClientResponse, std::string> https_get(const std::string& host,
                                                          std::uint16_t port,
                                                          const std::string& target,
                                                          const QueryOptions& options) {
  http::ClientRequest req;
  req.host = host;
  req.port = port;
  req.target = target;
  req.headers = {{"User-Agent", "nsqd/1.3.0"}, {"Accept", "application/vnd.nsq; version=1.0"}};
  req.connect_timeout = options.connect_timeout;
  req.request_timeout = options.request_timeout;
  req.max_body = options.max_body;
  req.tls.enable = true;
  req.tls.root_ca_file = options.root_ca_file;
  return http::request(req);
}

}  // namespace

tl::expected<State, std::string> query_any(const std::vector<std::string>& addresses,
                                           std::size_t start, const std::string& query,
                                           const QueryOptions& options,
                                           std::vector<std::string>& failures) {
  const std::size_t n = addresses.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& address = addresses[(start + i) % n];
    auto ep = parse_address(address);
    if (!ep) {
      failures.push_back("failed auth against " + address + " " + ep.error());
      continue;
    }
    std::string target = ep->path + (ep->path.find('?') == std::string::npos ? "?" : "&") + query;
    auto resp = ep->https ? https_get(ep->host, ep->port, target, options)
                          : http::get(ep->host, ep->port, target, options.connect_timeout,
                                      options.request_timeout, options.max_body);
    // As Go's client: a plain server that answers 403 with an https_port
    // (an nsqd-style TLS_REQUIRED) is asked again over https on that port.
    if (resp && !ep->https && resp->status == 403) {
      if (auto https_port = https_port_of(resp->body)) {
        resp = https_get(ep->host, *https_port, target, options);
      }
    }
    if (!resp) {
      failures.push_back("failed auth against " + address + " " + resp.error());
      continue;
    }
    if (resp->status != 200) {
      failures.push_back("failed auth against " + address + " got response " +
                         std::to_string(resp->status));
      continue;
    }
    auto state = parse_reply(resp->body, std::chrono::steady_clock::now());
    if (!state) {
      failures.push_back("failed auth against " + address + " " + state.error());
      continue;
    }
    return state;
  }
  return tl::unexpected(std::string("Failed to Authenticate"));
}

}  // namespace nsq::nsqd::auth
