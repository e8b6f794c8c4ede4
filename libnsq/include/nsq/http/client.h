#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "nsq/http/message.h"

namespace nsq::http {

struct ClientResponse {
  int status = 0;
  HeaderList headers;  // names lower-cased
  std::string body;    // decoded (a chunked body is joined)
};

// A blocking HTTP/1.0 GET for the few requests NSQ servers make themselves
// (nsqd asking lookupd for a topic's channels, the auth server, lookupd
// discovery in the client): one connection per request, no redirects.
// `connect_timeout` bounds the TCP connect, `request_timeout` the whole
// exchange. Sends `Accept: application/vnd.nsq; version=1.0`, as NSQ does.
// The error is a message such as "connect 127.0.0.1:4161: Connection refused".
tl::expected<ClientResponse, std::string> get(const std::string& host, std::uint16_t port,
                                              const std::string& path_and_query,
                                              std::chrono::milliseconds connect_timeout,
                                              std::chrono::milliseconds request_timeout,
                                              std::size_t max_body = 5 * 1024 * 1024);

// TLS for an https:// request. Only plain fields here: the OpenSSL state
// lives in src/http/client_tls.cc, so this header stays light.
struct ClientTls {
  bool enable = false;
  // The name sent as SNI (not for IP literals, as Go) and checked against
  // the certificate; empty means the request's host.
  std::string server_name;
  bool insecure_skip_verify = false;  // accept any certificate (Go's InsecureSkipVerify)
  std::string root_ca_file;           // PEM roots; empty means the system's
  std::string cert_file;              // client certificate (PEM), with key_file
  std::string key_file;
};

// One request of any method (nsq_to_http's GET/POST, tools asking nsqd or
// lookupd). Sent as HTTP/1.1 with `Host` (host:port), `Content-Length` (when
// there is a body or the method is POST/PUT) and `Connection: close`, plus
// `headers` in order; one of those three given in `headers` is sent instead
// of ours (e.g. Host = Url::authority, as Go sends it). The
// response may be delimited by Content-Length, chunked encoding or the end
// of the connection.
struct ClientRequest {
  std::string method = "GET";
  std::string host;  // name or address; an IPv6 address without brackets
  std::uint16_t port = 80;
  std::string target = "/";  // path and query, already escaped
  HeaderList headers;        // e.g. {"User-Agent", "nsq_to_http v1.3.0"}
  std::string body;
  std::chrono::milliseconds connect_timeout{2000};  // the TCP connect
  std::chrono::milliseconds request_timeout{5000};  // the whole exchange, connect included
  std::size_t max_body = 5 * 1024 * 1024;           // a larger response body is an error
  ClientTls tls;  // tls.enable: the exchange runs over TLS (handshake inside the timeouts)
};

// Errors are texts such as "connect 127.0.0.1:80: Connection refused",
// "read 127.0.0.1:80: i/o timeout", "malformed HTTP response from ...";
// over TLS also "TLS handshake with 127.0.0.1:443: certificate verify
// failed: ..." or "tls: client certificate ...: ...".
tl::expected<ClientResponse, std::string> request(const ClientRequest& request);

// Requests to one server over one connection kept open between them
// (HTTP/1.1 keep-alive), for a caller that asks the same server many times a
// second (a cluster follower's fetches): no connect, accept and close per
// request. A request to another host:port closes the kept connection first.
// A request on a kept connection that the server closed before answering is
// sent again on a new one: only for requests that may be repeated. No TLS.
// Not thread-safe.
class KeptConnection {
 public:
  KeptConnection() = default;
  ~KeptConnection();
  KeptConnection(const KeptConnection&) = delete;
  KeptConnection& operator=(const KeptConnection&) = delete;

  // send() then receive().
  tl::expected<ClientResponse, std::string> request(const ClientRequest& request);
  // The two halves of a request, for a caller with other work to do while
  // the server answers (a follower's next fsync while the leader takes its
  // confirmation). A send() while an answer is due reads and drops it first.
  tl::expected<void, std::string> send(const ClientRequest& request);
  // The answer to the last send(), within its request_timeout.
  tl::expected<ClientResponse, std::string> receive();
  // A send() whose answer receive() has not read yet.
  bool awaiting() const { return pending_.has_value(); }
  void close();

 private:
  struct Pending {
    std::string raw;  // sent again once if the kept connection was closed before the answer
    std::string host;
    std::uint16_t port = 0;
    bool head = false;
    bool reused = false;  // went on a connection kept from an earlier request
    std::size_t max_body = 0;
    std::chrono::milliseconds connect_timeout{};
    std::chrono::steady_clock::time_point deadline{};
  };
  // Writes p.raw, connecting first when no connection is kept.
  tl::expected<void, std::string> write(Pending& p);

  int fd_ = -1;
  std::string where_;  // host:port of fd_
  std::optional<Pending> pending_;
};

// The parts of an absolute http:// or https:// URL that a request needs.
struct Url {
  bool https = false;        // scheme https: the request needs ClientTls::enable
  std::string authority;     // "host[:port]" as written, without user info: Go's Host header
  std::string host;          // without brackets for IPv6
  std::uint16_t port = 80;   // 443 when https and none written
  std::string target = "/";  // path (as written, "/" if empty) and "?query"; no fragment
  // "user:password@" as written, percent-decoded; Go sends them as
  // `Authorization: Basic ...` where it proxies (nsqadmin's graphite).
  bool has_user_info = false;
  std::string username;
  std::string password;
};

// Parses "http[s]://[user[:password]@]host[:port][/path][?query][#fragment]"
// (scheme in any case). Errors: another scheme (e.g. `unsupported protocol
// scheme "ftp"`), no host, a bad port, a bad escape in the user info.
tl::expected<Url, std::string> parse_url(std::string_view url);

// Go's url.QueryEscape: letters, digits and "-_.~" kept, space as '+',
// every other byte as %XX (upper-case hex).
std::string query_escape(std::string_view text);

// The value of an `Authorization` header for HTTP basic auth: "Basic " and
// base64("user:password"), as Go's Request.SetBasicAuth.
std::string basic_auth(std::string_view username, std::string_view password);

}  // namespace nsq::http
