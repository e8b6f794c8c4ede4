#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nsq::testutil {

// One parsed HTTP/1.1 response. Header names are lower-cased; values keep
// their case with surrounding blanks trimmed.
struct HttpReply {
  int status = 0;
  std::string version;  // "HTTP/1.1"
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool connection_close =
      false;  // the server said "Connection: close" (or HTTP/1.0 without keep-alive)

  // First value of header `name` (any case), nullopt if absent.
  std::optional<std::string> header(std::string_view name) const;
  bool has_header(std::string_view name) const { return header(name).has_value(); }
  // "<status> <headers…> <body>" for failure messages.
  std::string describe() const;
};

// A small blocking HTTP/1.1 client over POSIX sockets to 127.0.0.1:<port>,
// for tests: keeps its connection open between requests (keep-alive) unless
// a request or the server asks for `Connection: close`.
//
// request() adds `Host` and, for a non-empty body or POST/PUT, a
// `Content-Length` - unless the caller passed its own `Content-Length` (sent
// as given, even if it lies) or `Transfer-Encoding: chunked` (then the body
// is sent in chunks of at most 64 bytes).
//
// Responses are delimited by Content-Length, chunked encoding or the end of
// the connection. Every wait is bounded by the timeout.
//
// @par Thread Safety: none; one thread per client.
class HttpClient {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;

  explicit HttpClient(int port,
                      std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  // `host`: an IPv4 address (the one above is 127.0.0.1).
  HttpClient(std::string host, int port,
             std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  ~HttpClient();
  HttpClient(HttpClient&& other) noexcept;
  HttpClient& operator=(HttpClient&& other) noexcept;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request (connecting first if there is no usable connection)
  // and reads its response; nullopt on a connection error, timeout or an
  // unparsable response (see last_error()).
  std::optional<HttpReply> request(std::string_view method, std::string_view target,
                                   std::string_view body = {}, const Headers& headers = {});

  // Lower level: open a connection, send bytes as they are, read one response.
  bool connect();
  bool connected() const { return fd_ >= 0; }
  void close();
  bool send_raw(std::string_view bytes);
  std::optional<HttpReply> read_response(bool head_request = false);
  // True if the server closes the connection within timeout (bytes before are dropped).
  bool wait_closed(std::chrono::milliseconds timeout);

  // TCP connections opened so far (keep-alive reuse: stays 1).
  int connects() const { return connects_; }
  const std::string& last_error() const { return error_; }
  void set_timeout(std::chrono::milliseconds t) { timeout_ = t; }

 private:
  bool fill(std::chrono::steady_clock::time_point
                deadline);  // more bytes into buf_; false on EOF/error/timeout
  bool usable();            // an open connection the server has not closed
  std::optional<HttpReply> fail(std::string why);

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
  bool eof_ = false;
  std::string buf_;  // received, not yet consumed
  int connects_ = 0;
  std::string error_;
};

// One request on a fresh connection closed afterwards.
std::optional<HttpReply> http_once(
    int port, std::string_view method, std::string_view target, std::string_view body = {},
    const HttpClient::Headers& headers = {},
    std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

}  // namespace nsq::testutil
