#pragma once

// Plain value types of nsq::http::Server (server.h): one parsed request and the
// handler's response. No Asio or Beast here.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nsq::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One HTTP/1.x request, fully read (headers and body) before the handler sees it.
struct Request {
  std::string method;     // as sent, e.g. "GET", "POST" (case-sensitive, like Go)
  std::string target;     // as received, e.g. "/pub?topic=x&defer=10"
  std::string path;       // "/pub": percent-decoded ('+' stays '+'), without the query
  std::string raw_query;  // "topic=x&defer=10": after the first '?', undecoded
  // Decoded pairs of raw_query in order, as Go's url.ParseQuery splits them
  // ('&' only, '+' is a space, "k" alone is ("k", "")); a key may repeat.
  std::vector<std::pair<std::string, std::string>> query;
  // raw_query has a pair Go's url.ParseQuery rejects (a bad %-escape or a ';').
  // That pair is left out of `query`; nsqd answers 400 INVALID_REQUEST.
  bool bad_query = false;
  HeaderList headers;  // names lower-cased, values as sent (trimmed), in order
  std::string body;    // decoded (chunked bodies are joined); empty if body_too_big
  // The body was larger than ServerOptions::max_body_size (by Content-Length or
  // while reading a chunked body): `body` is empty and the server closes the
  // connection after the response. The handler picks the status and message
  // (nsqd: 413 MSG_TOO_BIG / BODY_TOO_BIG / INVALID_VALUE depending on the path).
  bool body_too_big = false;
  std::string remote_address;  // "ip:port" ("[v6]:port")
  int version = 11;            // 10 or 11
  bool keep_alive = true;      // the client wants the connection kept open

  // First value of `key` in the query, if present.
  std::optional<std::string> query_value(std::string_view key) const;
  // First value of header `name` (any case), if present.
  std::optional<std::string> header(std::string_view name) const;
};

// The handler's answer. The server adds Content-Length, Date and, when it will
// close the connection, "Connection: close".
struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";  // empty: no Content-Type
  std::string body;
  // Extra headers, written as given. Content-Length and Transfer-Encoding are
  // ignored (the server owns framing); "Connection: close" closes the connection
  // after this response. Headers whose name or value hold CR or LF are dropped.
  HeaderList headers;
};

// "OK", "Not Found", ... for a status code ("" if unknown).
std::string_view status_text(int status);

// Whether `method` is in `allow`, an Allow header's value ("GET, POST"); HEAD
// counts as GET, as Go's router serves it.
bool method_allowed(std::string_view allow, std::string_view method);

}  // namespace nsq::http
