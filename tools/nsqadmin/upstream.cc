#include "upstream.h"

#include "nsq/flags/go_strconv.h"
#include "nsq/http/client.h"
#include "nsq/http/message.h"

namespace nsq::admin {
namespace {

tl::expected<http::ClientResponse, std::string> send(const std::string& method,
                                                     const std::string& url, std::string body,
                                                     http::HeaderList headers,
                                                     const UpstreamTimeouts& timeouts) {
  const std::string verb = method == "GET" ? "Get" : "Post";
  auto parsed = http::parse_url(url);
  if (!parsed) return tl::unexpected("parse \"" + url + "\": " + parsed.error());
  http::ClientRequest req;
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
  if (!resp) return tl::unexpected(verb + " \"" + url + "\": " + resp.error());
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
