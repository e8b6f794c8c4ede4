#include "lookupd_query.h"

#include "nsq/http/client.h"

namespace nsq::client {

tl::expected<std::vector<std::string>, std::string> query_lookupd(
    const LookupdEndpoint& endpoint, std::string_view topic, std::chrono::milliseconds timeout,
    const std::string& bearer_secret) {
  http::ClientRequest request;
  request.host = endpoint.host;
  request.port = endpoint.port;
  request.target = endpoint.path;
  request.target += request.target.find('?') == std::string::npos ? '?' : '&';
  request.target += "topic=" + http::query_escape(topic);
  request.headers.emplace_back("Accept", "application/vnd.nsq; version=1.0");
  if (!bearer_secret.empty())
    request.headers.emplace_back("Authorization", "Bearer " + bearer_secret);
  request.connect_timeout = timeout;
  request.request_timeout = timeout;
  auto response = http::request(request);
  if (!response) return tl::unexpected(response.error());
  if (response->status != 200)
    return tl::unexpected("got response " + std::to_string(response->status) + " " +
                          response->body);
  return parse_lookup_producers(response->body);
}

}  // namespace nsq::client
