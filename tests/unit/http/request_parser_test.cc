// The sans-I/O request parser and Go-compatible target/query decoding
// (libnsq/src/http/request_parser.cc, target.cc, response.cc). No network.

#include "http/request_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "http/response.h"
#include "http/target.h"
#include "nsq/http/message.h"
#include "nsq/http/router.h"

namespace nsq::http::detail {
namespace {

using Status = RequestParser::Status;

// Feeds `bytes` in pieces of `piece` bytes, as a socket would, keeping
// unconsumed bytes for the next put. Returns all requests and the final status.
struct Fed {
  std::vector<Request> requests;
  Status last = Status::need_more;
  int error_status = 0;
};
Fed feed(std::string_view bytes, std::size_t piece, ParserLimits limits = {}) {
  Fed out;
  std::string pending;
  std::size_t offset = 0;
  auto parser = std::make_unique<RequestParser>(limits);
  for (;;) {
    auto step = parser->put(pending);
    pending.erase(0, step.consumed);
    out.last = step.status;
    if (step.status == Status::error) {
      out.error_status = parser->error_status();
      return out;
    }
    if (step.status == Status::done) {
      out.requests.push_back(parser->take_request());
      if (out.requests.back().body_too_big) return out;
      parser = std::make_unique<RequestParser>(limits);
      continue;
    }
    if (offset == bytes.size()) return out;
    std::size_t n = std::min(piece, bytes.size() - offset);
    pending.append(bytes.substr(offset, n));
    offset += n;
  }
}

TEST(RequestParser, SimpleGet) {
  auto r = parse_request("GET /ping?x=1 HTTP/1.1\r\nHost: h\r\nUser-Agent: UA\r\n\r\n", {});
  ASSERT_EQ(r.status, Status::done);
  ASSERT_TRUE(r.request);
  EXPECT_EQ(r.request->method, "GET");
  EXPECT_EQ(r.request->target, "/ping?x=1");
  EXPECT_EQ(r.request->path, "/ping");
  EXPECT_EQ(r.request->raw_query, "x=1");
  EXPECT_EQ(r.request->query_value("x"), "1");
  EXPECT_EQ(r.request->query_value("y"), std::nullopt);
  EXPECT_EQ(r.request->header("user-agent"), "UA");
  EXPECT_EQ(r.request->header("USER-AGENT"), "UA");
  ASSERT_EQ(r.request->headers.size(), 2u);
  EXPECT_EQ(r.request->headers[1].first, "user-agent");
  EXPECT_EQ(r.request->version, 11);
  EXPECT_TRUE(r.request->keep_alive);
  EXPECT_FALSE(r.request->body_too_big);
}

TEST(RequestParser, IncompleteNeedsMore) {
  auto r = parse_request("GET /ping HTTP/1.1\r\nHost: h\r\n", {});
  EXPECT_EQ(r.status, Status::need_more);
  EXPECT_LE(r.consumed, 20u);  // at most the request line (Beast keeps it)
  r = parse_request("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab", {});
  EXPECT_EQ(r.status, Status::need_more);
}

TEST(RequestParser, ByteByByteEqualsWhole) {
  std::string stream =
      "POST /pub?topic=a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
      "GET /stats?format=json HTTP/1.1\r\nHost: h\r\n\r\n"
      "POST /mpub HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"
      "GET /old HTTP/1.0\r\n\r\n";
  for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, stream.size()}) {
    auto fed = feed(stream, piece);
    ASSERT_EQ(fed.requests.size(), 4u) << piece;
    EXPECT_EQ(fed.requests[0].body, "hello");
    EXPECT_EQ(fed.requests[1].query_value("format"), "json");
    EXPECT_EQ(fed.requests[2].body, "abcde");
    EXPECT_EQ(fed.requests[3].version, 10);
    EXPECT_FALSE(fed.requests[3].keep_alive);
  }
}

TEST(RequestParser, ConsumedStopsAtRequestEnd) {
  std::string two = "GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n";
  auto r = parse_request(two, {});
  ASSERT_EQ(r.status, Status::done);
  EXPECT_EQ(r.consumed, two.size() / 2);
}

TEST(RequestParser, BodyLimit) {
  ParserLimits limits;
  limits.max_body_size = 4;
  auto r = parse_request("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nabcd", limits);
  ASSERT_EQ(r.status, Status::done);
  EXPECT_FALSE(r.request->body_too_big);
  // Content-Length over the limit: known from the header alone.
  r = parse_request("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n", limits);
  ASSERT_EQ(r.status, Status::done);
  EXPECT_TRUE(r.request->body_too_big);
  EXPECT_EQ(r.request->body, "");
  EXPECT_EQ(r.request->header("content-length"), "5");
  EXPECT_EQ(r.request->path, "/p");
  auto fed = feed(
      "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n",
      3, limits);
  ASSERT_EQ(fed.requests.size(), 1u);
  EXPECT_TRUE(fed.requests[0].body_too_big);
}

TEST(RequestParser, HeaderLimit) {
  ParserLimits limits;
  limits.max_header_size = 100;
  auto fed =
      feed("GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(200, 'a') + "\r\n\r\n", 10, limits);
  EXPECT_EQ(fed.last, Status::error);
  EXPECT_EQ(fed.error_status, 431);
}

// The whole header counts, request line included.
TEST(RequestParser, HeaderLimitIsOnTheWholeHeader) {
  ParserLimits limits;
  limits.max_header_size = 100;
  std::string fits = "GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(100 - 32, 'a') + "\r\n\r\n";
  ASSERT_EQ(fits.size(), 100u);
  EXPECT_EQ(feed(fits, 7, limits).requests.size(), 1u);
  auto over = feed("GET / HTTP/1.1\r\nHost: h\r\nA: " + std::string(40, 'a') +
                       "\r\nB: " + std::string(40, 'b') + "\r\n\r\n",
                   7, limits);
  EXPECT_EQ(over.error_status, 431);
}

// Go's textproto ends a line at LF, with or without CR before it, and skips a
// field whose name is empty.
TEST(RequestParser, LineEndsAndEmptyNames) {
  for (std::string bytes : {
           "POST /pub?topic=t HTTP/1.1\nHost: h\nContent-Length: 2\n\nab",
           "POST /pub?topic=t HTTP/1.1\r\nHost: h\nContent-Length: 2\r\n\nab",
           "POST /pub?topic=t HTTP/1.1\nHost: h\n: ignored\nContent-Length: 2\r\n\r\nab",
       }) {
    for (std::size_t piece : {std::size_t{1}, std::size_t{5}, bytes.size()}) {
      auto fed = feed(bytes + bytes, piece);
      ASSERT_EQ(fed.requests.size(), 2u) << bytes << " in pieces of " << piece;
      for (const auto& r : fed.requests) {
        EXPECT_EQ(r.path, "/pub");
        EXPECT_EQ(r.body, "ab");
        EXPECT_EQ(r.header("host"), "h");
        EXPECT_EQ(r.headers.size(), 2u);
      }
    }
  }
}

TEST(RequestParser, Errors) {
  struct Case {
    std::string bytes;
    int status;
  };
  for (const auto& tc : std::vector<Case>{
           {"\r\n\r\n", 400},
           {"GET / HTTP/1.1\r\n\r\n", 400},
           {"GET / HTTP/3.0\r\nHost: h\r\n\r\n", 505},
           {"GET / HTTP/0.9\r\nHost: h\r\n\r\n", 505},
           {"GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400},
           {"GET / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n\r\n", 417},
           // Go takes this (chunked wins); we refuse the ambiguous framing
           // (docs/compatibility.md).
           {"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n"
            "Transfer-Encoding: chunked\r\n\r\n",
            400},
           {"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
           {"GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
           {"GET / HTTP/1.1\r\nHost: h\r\nBad Name: 1\r\n\r\n", 400},
           {"GET / HTTP/1.1\r\n Host: h\r\n\r\n", 400},
           {"GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400},
           {"GET / HTTP/1.1\rHost: h\r\r", 400},
           {"\nGET / HTTP/1.1\nHost: h\n\n", 400},
       }) {
    auto r = parse_request(tc.bytes, {});
    EXPECT_EQ(r.status, Status::error) << tc.bytes;
    EXPECT_EQ(r.error_status, tc.status) << tc.bytes;
  }
}

// Go's own words for what net/http refuses.
TEST(RequestParser, ErrorReasons) {
  for (const auto& [bytes, reason] : std::vector<std::pair<std::string, std::string>>{
           {"GET / HTTP/1.1\r\n\r\n", "missing required Host header"},
           {"GET / HTTP/2.0\r\nHost: h\r\n\r\n", "unsupported protocol version"},
           {"GET / HTTP/1.1\r\nHost: a@b\r\n\r\n", "malformed Host header"},
           {"GET / HTTP/1.1\r\nHost: h\r\nHost: i\r\n\r\n", ""},
           {"GET / HTTP/1.1\r\nHost: h\r\nBad Name: 1\r\n\r\n", "invalid header name"},
           {"GET / HTTP/1.1\r\nHost: h\r\nX: a\x01b\r\n\r\n", "invalid header value"},
           {"GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", ""},
           {"GET / HTTP/1.1\r\n Host: h\r\n\r\n", ""},
           {"GET / HTTP/1.1\nHost: h\nBad Name: 1\n\n", "invalid header name"},
           {"GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", "invalid header value"},
           {"GET / HTTP/1.1\r\nHost: h\r\nX\rY: a\r\n\r\n", "invalid header name"},
       }) {
    auto r = parse_request(bytes, {});
    EXPECT_EQ(r.status, Status::error) << bytes;
    EXPECT_EQ(r.error_reason, reason) << bytes;
  }
  const std::string date = "Mon, 02 Jan 2006 15:04:05 GMT";
  EXPECT_EQ(go_error_bytes(400, "missing required Host header", date),
            "HTTP/1.1 400 Bad Request: missing required Host header\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
            "400 Bad Request: missing required Host header");
  EXPECT_EQ(go_error_bytes(400, "", date),
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Connection: close\r\n\r\n400 Bad Request");
  EXPECT_EQ(go_error_bytes(501, "", date),
            "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Connection: close\r\n\r\nUnsupported transfer encoding");
  EXPECT_EQ(go_error_bytes(417, "", date),
            "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n"
            "Date: Mon, 02 Jan 2006 15:04:05 GMT\r\nConnection: close\r\n\r\n");
}

// A per-request limit refuses a declared length before the body is read.
TEST(RequestParser, BodyLimitForTheRequest) {
  ParserLimits limits;
  limits.body_limit_for = [](const Request& head) -> std::size_t {
    return head.path == "/pub" ? 10 : 1000;
  };
  auto r = parse_request(
      "POST /pub?topic=t HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n"
      "Expect: 100-continue\r\n\r\n",
      limits);
  ASSERT_EQ(r.status, Status::done);
  EXPECT_TRUE(r.request->body_too_big);
  EXPECT_EQ(r.request->query_value("topic"), "t");
  r = parse_request("POST /pub HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789",
                    limits);
  ASSERT_EQ(r.status, Status::done);
  EXPECT_FALSE(r.request->body_too_big);
  EXPECT_EQ(r.request->body, "0123456789");
  r = parse_request("POST /mpub HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n0123456789a",
                    limits);
  ASSERT_EQ(r.status, Status::done);
  EXPECT_FALSE(r.request->body_too_big);
}

TEST(RequestParser, ExpectContinue) {
  RequestParser p(ParserLimits{});
  std::string head =
      "PUT /config/log_level HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n"
      "Expect: 100-Continue\r\n\r\n";
  auto step = p.put(head);
  EXPECT_EQ(step.status, Status::need_more);
  EXPECT_EQ(step.consumed, head.size());
  EXPECT_TRUE(p.expects_continue());
  step = p.put("warn");
  EXPECT_EQ(step.status, Status::done);
  EXPECT_FALSE(p.expects_continue());
  EXPECT_EQ(p.take_request().body, "warn");
}

TEST(Target, Forms) {
  auto t = parse_target("/a%2Fb+c?x=%20");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/a/b+c");
  EXPECT_EQ(t->raw_query, "x=%20");
  t = parse_target("http://host:4151/pub?topic=x");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/pub");
  EXPECT_EQ(t->raw_query, "topic=x");
  t = parse_target("http://host:4151");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/");
  EXPECT_TRUE(parse_target("*"));
  EXPECT_FALSE(parse_target("pub"));
  EXPECT_FALSE(parse_target(""));
  EXPECT_FALSE(parse_target("/a%"));
  EXPECT_FALSE(parse_target("/a%4"));
  EXPECT_FALSE(parse_target("/a%g0"));
}

TEST(Query, GoParseQuery) {
  auto q = parse_query("a=1&b=x+y&a=2&&c&d=%41&e=");
  EXPECT_FALSE(q.bad);
  std::vector<std::pair<std::string, std::string>> want = {{"a", "1"}, {"b", "x y"}, {"a", "2"},
                                                           {"c", ""},  {"d", "A"},   {"e", ""}};
  EXPECT_EQ(q.pairs, want);
  q = parse_query("topic=t&x=%zz&y=1;z=2&k%=1&ok=1");
  EXPECT_TRUE(q.bad);
  want = {{"topic", "t"}, {"ok", "1"}};
  EXPECT_EQ(q.pairs, want);
  q = parse_query("=v");
  EXPECT_EQ(q.pairs, (std::vector<std::pair<std::string, std::string>>{{"", "v"}}));
}

TEST(Response, Head) {
  Response r;
  r.body = "OK";
  r.headers.emplace_back("X-NSQ-Content-Type", "nsq; version=1.0");
  r.headers.emplace_back("Content-Length", "99");
  std::string date = "Mon, 02 Jan 2006 15:04:05 GMT";
  EXPECT_EQ(response_head(r, 11, false, date),
            "HTTP/1.1 200 OK\r\nX-NSQ-Content-Type: nsq; version=1.0\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n"
            "Date: Mon, 02 Jan 2006 15:04:05 GMT\r\n\r\n");
  r.status = 204;
  EXPECT_EQ(response_head(r, 10, true, date),
            "HTTP/1.0 204 No Content\r\nX-NSQ-Content-Type: nsq; version=1.0\r\n"
            "Date: Mon, 02 Jan 2006 15:04:05 GMT\r\n\r\n");  // no "Connection: close" for 1.0
  r.status = 404;
  r.content_type = "";
  EXPECT_EQ(response_head(r, 10, false, date),
            "HTTP/1.0 404 Not Found\r\nX-NSQ-Content-Type: nsq; version=1.0\r\n"
            "Content-Length: 2\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\n"
            "Connection: keep-alive\r\n\r\n");
  EXPECT_EQ(http_date(1136214245), "Mon, 02 Jan 2006 15:04:05 GMT");
  EXPECT_EQ(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  Response c;
  c.headers.emplace_back("connection", "Keep-Alive, Close");
  EXPECT_TRUE(response_wants_close(c));
}

TEST(MethodAllowed, AllowListAndHeadAsGet) {
  EXPECT_TRUE(method_allowed("GET", "GET"));
  EXPECT_TRUE(method_allowed("GET", "HEAD"));
  EXPECT_TRUE(method_allowed("GET, POST", "POST"));
  EXPECT_TRUE(method_allowed("GET, PUT", "PUT"));
  EXPECT_FALSE(method_allowed("GET, PUT", "POST"));
  EXPECT_FALSE(method_allowed("POST", "HEAD"));
  EXPECT_FALSE(method_allowed("POST", "post"));  // case-sensitive, as Go
  EXPECT_FALSE(method_allowed("GET, POST", "GET, POST"));
  EXPECT_FALSE(method_allowed("", "GET"));
}

// The router resolves as Go's httprouter does (see router.h).
TEST(Router, GoRules) {
  Router router;
  router.add("GET", "/ping", 1);
  router.add("POST", "/pub", 2);
  router.add("GET", "/config/:opt", 3);
  router.add("PUT", "/config/:opt", 3);
  router.add("GET", "/debug/pprof/", 4);
  auto route = [&](std::string method, std::string target) {
    auto parsed = parse_request(method + " " + target + " HTTP/1.1\r\nHost: h\r\n\r\n", {});
    EXPECT_EQ(parsed.status, Status::done) << target;
    return router.route(*parsed.request);
  };
  using Kind = Router::Result::Kind;
  auto location = [](const Router::Result& r) {
    for (const auto& [k, v] : r.response.headers) {
      if (k == "Location") return v;
    }
    return std::string();
  };
  auto r = route("GET", "/config/Log_Level");
  EXPECT_EQ(r.kind, Kind::match);
  EXPECT_EQ(r.id, 3);
  EXPECT_EQ(r.param, "Log_Level");
  r = route("POST", "//pub?topic=t");
  EXPECT_EQ(r.kind, Kind::redirect);
  EXPECT_EQ(r.response.status, 307);
  EXPECT_EQ(location(r), "/pub?topic=t");
  EXPECT_EQ(r.response.body, "");
  EXPECT_EQ(r.response.content_type, "");
  r = route("GET", "/x/../PING");
  EXPECT_EQ(r.response.status, 301);
  EXPECT_EQ(location(r), "/ping");
  EXPECT_EQ(r.response.body, "<a href=\"/ping\">Moved Permanently</a>.\n\n");
  EXPECT_EQ(r.response.content_type, "text/html; charset=utf-8");
  r = route("GET", "/CONFIG/Opt/");
  EXPECT_EQ(location(r), "/config/Opt");
  r = route("GET", "/debug/pprof?a=1&b=2");
  EXPECT_EQ(location(r), "/debug/pprof/?a=1&b=2");
  EXPECT_EQ(r.response.body, "<a href=\"/debug/pprof/?a=1&amp;b=2\">Moved Permanently</a>.\n\n");
  // Trailing slashes redirect only within the method's own table.
  EXPECT_EQ(route("GET", "/pub/").kind, Kind::not_found);
  EXPECT_EQ(route("POST", "/ping/").kind, Kind::not_found);
  EXPECT_EQ(route("GET", "/config/").kind, Kind::not_found);
  r = route("GET", "/pub");
  EXPECT_EQ(r.kind, Kind::method_not_allowed);
  EXPECT_EQ(r.allow, "OPTIONS, POST");
  r = route("DELETE", "/config/x");
  EXPECT_EQ(r.allow, "GET, OPTIONS, PUT");
  r = route("HEAD", "/ping");
  EXPECT_EQ(r.kind, Kind::method_not_allowed);
  EXPECT_EQ(r.allow, "GET, OPTIONS");
  r = route("OPTIONS", "/ping");
  EXPECT_EQ(r.kind, Kind::options);
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(location(r), "");
  r = route("OPTIONS", "*");
  EXPECT_EQ(r.kind, Kind::options);
  EXPECT_TRUE(r.response.headers.empty());
  r = route("GET", "*");
  EXPECT_EQ(r.allow, "GET, OPTIONS, POST, PUT");
  EXPECT_EQ(route("OPTIONS", "/nope").kind, Kind::not_found);
  EXPECT_EQ(route("GET", "/").kind, Kind::not_found);
}

TEST(Router, Paths) {
  EXPECT_EQ(clean_path("//a/./b/../c"), "/a/c");
  EXPECT_EQ(clean_path("/.."), "/");
  EXPECT_EQ(clean_path(""), ".");
  EXPECT_EQ(escape_path("/a b/%?\xc3\xa9;@"), "/a%20b/%25%3F%C3%A9;@");
}

}  // namespace
}  // namespace nsq::http::detail
