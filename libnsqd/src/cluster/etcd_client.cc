#include "cluster/etcd_client.h"

namespace nsq::nsqd::cluster::etcd {
namespace {

// The answer of `call`, parsed by `parse`.
template <class Parse>
auto parsed(tl::expected<std::string, std::string> answer, Parse parse)
    -> decltype(parse(std::string_view())) {
  if (!answer) return tl::unexpected(std::move(answer.error()));
  return parse(*answer);
}

}  // namespace

tl::expected<Client, std::string> Client::make(const std::vector<std::string>& endpoints,
                                               Timeouts timeouts) {
  std::vector<http::Url> urls;
  for (const auto& endpoint : endpoints) {
    auto url = http::parse_url(endpoint);
    if (!url) return tl::unexpected("etcd endpoint " + endpoint + ": " + url.error());
    urls.push_back(std::move(*url));
  }
  if (urls.empty()) return tl::unexpected(std::string("no etcd endpoint"));
  return Client(std::move(urls), timeouts);
}

tl::expected<std::string, std::string> Client::call(std::string_view path, std::string body) const {
  std::string errors;
  const std::size_t first = current_.load();
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    const std::size_t at = (first + i) % endpoints_.size();
    const http::Url& url = endpoints_[at];
    http::ClientRequest request;
    request.method = "POST";
    request.host = url.host;
    request.port = url.port;
    request.target = std::string(path);
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body;
    request.connect_timeout = timeouts_.connect;
    request.request_timeout = timeouts_.request;
    request.tls.enable = url.https;
    auto response = http::request(request);
    if (!response) {
      if (!errors.empty()) errors += "; ";
      errors += response.error();
      continue;
    }
    current_.store(at);
    if (response->status == 200) return std::move(response->body);
    const auto text = parse_error(response->body);
    return tl::unexpected("etcd " + url.authority + std::string(path) + ": " +
                          std::to_string(response->status) + " " +
                          text.value_or(response->body.substr(0, 200)));
  }
  return tl::unexpected("no etcd endpoint answered: " + errors);
}

tl::expected<RangeResult, std::string> Client::range(const Range& range) const {
  return parsed(call("/v3/kv/range", range_body(range)), parse_range);
}

tl::expected<std::int64_t, std::string> Client::put(std::string_view key, std::string_view value,
                                                    LeaseId lease) const {
  return parsed(call("/v3/kv/put", put_body(key, value, lease)), parse_revision);
}

tl::expected<std::int64_t, std::string> Client::remove(const Range& range) const {
  return parsed(call("/v3/kv/deleterange", remove_body(range)), parse_revision);
}

tl::expected<TxnResult, std::string> Client::txn(const std::vector<Compare>& compare,
                                                 const std::vector<Op>& success,
                                                 const std::vector<Op>& failure) const {
  return parsed(call("/v3/kv/txn", txn_body(compare, success, failure)), parse_txn);
}

tl::expected<LeaseId, std::string> Client::lease_grant(std::chrono::seconds ttl) const {
  return parsed(call("/v3/lease/grant", lease_grant_body(ttl.count())), parse_lease_grant);
}

tl::expected<std::int64_t, std::string> Client::lease_keepalive(LeaseId id) const {
  return parsed(call("/v3/lease/keepalive", lease_id_body(id)), parse_lease_keepalive);
}

tl::expected<std::int64_t, std::string> Client::lease_revoke(LeaseId id) const {
  return parsed(call("/v3/lease/revoke", lease_id_body(id)), parse_revision);
}

}  // namespace nsq::nsqd::cluster::etcd
