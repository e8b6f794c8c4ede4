#include "upstream.h"

#include "nsq/flags/go_strconv.h"
#include "nsq/http/client.h"
#include "nsq/http/message.h"
#include "options.h"

namespace nsq::admin {
namespace {

// The URL with its password as "***" (Go's URL.Redacted), for errors and logs.
std::string redacted(const std::string& url, const http::Url& parsed) {
  if (!parsed.has_user_info || parsed.password.empty()) return url;
  auto scheme_end = url.find("://");
  auto at = url.find('@', scheme_end + 3);
  auto colon = url.find(':', scheme_end + 3);
  if (at == std::string::npos || colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

tl::expected<http::ClientResponse, std::string> send(const std::string& method,
                                                     const std::string& url, std::string body,
                                                     http::HeaderList headers,
                                                     const UpstreamTimeouts& timeouts) {
  const std::string verb = method == "GET" ? "Get" : "Post";
  auto parsed = http::parse_url(url);
  if (!parsed) return tl::unexpected("parse \"" + url + "\": " + parsed.error());
  http::ClientRequest req;
  if (parsed->https) {
    req.tls = timeouts.tls;
    req.tls.enable = true;
  }
  if (parsed->has_user_info) {
    headers.emplace_back("Authorization", http::basic_auth(parsed->username, parsed->password));
  }
  req.method = method;
  req.host = parsed->host;
  req.port = parsed->port;
  req.target = parsed->target;
  req.headers = std::move(headers);
  req.headers.emplace_back("Host", parsed->authority);
  req.body = std::move(body);
  req.connect_timeout = timeouts.connect;
  req.request_timeout = timeouts.request;
  auto resp = http::request(req);
  if (!resp) return tl::unexpected(verb + " \"" + redacted(url, *parsed) + "\": " + resp.error());
  return resp;
}

tl::expected<std::string, std::string> v1(const std::string& method, const std::string& url,
                                          const UpstreamTimeouts& timeouts) {
  auto resp = send(method, url, "", {{"Accept", "application/vnd.nsq; version=1.0"}}, timeouts);
  if (!resp) return tl::unexpected(resp.error());
  if (resp->status != 200) {
    std::string status = std::to_string(resp->status);
    if (auto text = http::status_text(resp->status); !text.empty()) {
      status += " " + std::string(text);
    }
    return tl::unexpected("got response " + status + " " + flags::go_quote(resp->body));
  }
  return std::move(resp->body);
}

}  // namespace

UpstreamTimeouts upstream_settings(const Options& options) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  UpstreamTimeouts out;
  out.connect = duration_cast<milliseconds>(options.http_client_connect_timeout);
  out.request = duration_cast<milliseconds>(options.http_client_request_timeout);
  out.tls.insecure_skip_verify = options.http_client_tls_insecure_skip_verify;
  out.tls.root_ca_file = options.http_client_tls_root_ca_file;
  // Go loads the pair only when both are given (startup checks them).
  if (!options.http_client_tls_cert.empty() && !options.http_client_tls_key.empty()) {
    out.tls.cert_file = options.http_client_tls_cert;
    out.tls.key_file = options.http_client_tls_key;
  }
  return out;
}

tl::expected<http::ClientResponse, std::string> get_raw(const std::string& url,
                                                        const UpstreamTimeouts& timeouts) {
  return send("GET", url, "", {}, timeouts);
}

tl::expected<std::string, std::string> get_v1(const std::string& url,
                                              const UpstreamTimeouts& timeouts) {
  return v1("GET", url, timeouts);
}

tl::expected<std::string, std::string> post_v1(const std::string& url,
                                               const UpstreamTimeouts& timeouts) {
  return v1("POST", url, timeouts);
}

tl::expected<int, std::string> post_json(const std::string& url, const std::string& body,
                                         const UpstreamTimeouts& timeouts) {
  auto resp = send("POST", url, body, {{"Content-Type", "application/json"}}, timeouts);
  if (!resp) return tl::unexpected(resp.error());
  return resp->status;
}

}  // namespace nsq::admin
