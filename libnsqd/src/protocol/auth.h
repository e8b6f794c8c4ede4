#pragma once

#include <chrono>
#include <cstddef>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace nsq::nsqd::auth {

// One entry of the auth server's "authorizations" list.
struct Authorization {
  std::string topic_pattern;
  std::regex topic;
  std::vector<std::regex> channels;
  bool publish = false;
  bool subscribe = false;
};

// What the auth server granted one client's secret (tcp-protocol.md §6.2).
// Owned by that client's connection; not shared.
struct State {
  std::string identity;
  std::string identity_url;
  std::vector<Authorization> authorizations;
  std::chrono::steady_clock::time_point expires;

  bool expired(std::chrono::steady_clock::time_point now) const noexcept { return now >= expires; }
  // Go's IsAllowed: an empty channel asks for "publish", any other for
  // "subscribe"; regexes are unanchored searches.
  bool allows(std::string_view topic, std::string_view channel) const;
};

// The auth server's JSON answer, validated as Go nsqd does (known
// permissions, compilable regexes, ttl > 0); expires = now + ttl.
tl::expected<State, std::string> parse_reply(std::string_view body,
                                             std::chrono::steady_clock::time_point now);

// The query string nsqd sends: keys sorted, values escaped as Go's
// url.Values.Encode does.
std::string query_string(std::string_view secret, std::string_view remote_ip, bool tls,
                         std::string_view common_name);

struct Endpoint {
  bool https = false;
  std::string host;
  std::uint16_t port = 0;
  std::string path;  // "/auth" for a bare host:port
};

// "host:port" means http://host:port/auth; an address with "://" is the
// whole URL (http:// or https://).
tl::expected<Endpoint, std::string> parse_address(const std::string& address);

struct QueryOptions {
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds request_timeout{5000};
  std::size_t max_body = 5 * 1024 * 1024;
  std::string root_ca_file;  // --tls-root-ca-file: verifies https:// auth servers
};

// Asks the servers in turn, starting at `start`, until one answers; the
// errors of those that failed are returned in `failures` for the log.
// Blocking: call from a worker thread, never from an I/O thread.
tl::expected<State, std::string> query_any(const std::vector<std::string>& addresses,
                                           std::size_t start, const std::string& query,
                                           const QueryOptions& options,
                                           std::vector<std::string>& failures);

}  // namespace nsq::nsqd::auth
