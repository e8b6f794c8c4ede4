#include "http_publisher.h"

#include <algorithm>
#include <cctype>

#include "common/version.h"
#include "nsq/http/client.h"

namespace nsq::tools::to_http {
namespace {

bool same_name(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Go's Header.Set: replaces a header of the same (case-insensitive) name.
void set_header(http::HeaderList& headers, const std::string& name, const std::string& value) {
  for (auto& [n, v] : headers) {
    if (same_name(n, name)) {
      v = value;
      return;
    }
  }
  headers.emplace_back(name, value);
}

}  // namespace

HttpPublisher::HttpPublisher(bool post, std::string content_type, http::HeaderList custom_headers,
                             std::chrono::milliseconds connect_timeout,
                             std::chrono::milliseconds request_timeout)
    : post_(post), connect_timeout_(connect_timeout), request_timeout_(request_timeout) {
  set_header(headers_, "User-Agent", "nsq_to_http v" + std::string(kNsqVersion));
  if (post_) set_header(headers_, "Content-Type", content_type);
  for (const auto& [name, value] : custom_headers) {
    // Go's client takes Host from the URL and ignores a Host header.
    if (!same_name(name, "Host")) set_header(headers_, name, value);
  }
}

std::string HttpPublisher::get_url(const std::string& address, const std::string& body) {
  std::string url;
  url.reserve(address.size() + body.size() * 3);
  for (std::size_t i = 0; i < address.size(); ++i) {
    if (address[i] == '%' && i + 1 < address.size()) {
      if (address[i + 1] == 's') {
        url += http::query_escape(body);
        ++i;
        continue;
      }
      if (address[i + 1] == '%') {
        url += '%';
        ++i;
        continue;
      }
    }
    url += address[i];
  }
  return url;
}

tl::expected<void, std::string> HttpPublisher::publish(const std::string& address,
                                                       const std::string& body) const {
  auto url = http::parse_url(post_ ? address : get_url(address, body));
  if (!url) return tl::unexpected(url.error());
  http::ClientRequest request;
  request.method = post_ ? "POST" : "GET";
  request.host = url->host;
  request.port = url->port;
  request.target = url->target;
  // https:// and user:password@ as Go's default client: system roots, basic auth.
  request.tls.enable = url->https;
  request.headers = headers_;
  // As Go's client: the URL's user info only when no --header set Authorization.
  const bool has_authorization = std::any_of(headers_.begin(), headers_.end(), [](const auto& h) {
    return same_name(h.first, "Authorization");
  });
  if (url->has_user_info && !has_authorization) {
    request.headers.emplace_back("Authorization", http::basic_auth(url->username, url->password));
  }
  // Go's Host header is the URL's authority as written ("h", not "h:80").
  request.headers.emplace(request.headers.begin(), "Host", url->authority);
  if (post_) request.body = body;
  request.connect_timeout = connect_timeout_;
  request.request_timeout = request_timeout_;
  auto response = http::request(request);
  if (!response) return tl::unexpected(response.error());
  bool ok = post_ ? response->status >= 200 && response->status < 300 : response->status == 200;
  if (!ok) return tl::unexpected("got status code " + std::to_string(response->status));
  return {};
}

}  // namespace nsq::tools::to_http
