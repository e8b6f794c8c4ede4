// nsqd's HTTP surface, ours against Go nsqd v1.3.0 (issue 17): the same
// request bytes to both, the answers (status line, headers but Date, body,
// whether the connection closes) compared after ports are normalised.

#include <algorithm>
#include <cctype>
#include <string>
#include <thread>
#include <vector>

#include "differential/diff_harness.h"

namespace nsq::differential {

namespace {

// Whether `raw` ends with a complete final response (headers, and as much
// body as Content-Length says; none for HEAD).
bool response_complete(std::string_view raw, bool head) {
  for (;;) {
    auto end = raw.find("\r\n\r\n");
    if (end == std::string_view::npos) return false;
    std::string_view block = raw.substr(0, end);
    raw.remove_prefix(end + 4);
    if (block.size() > 9 && block[9] == '1') continue;  // 100 Continue
    std::size_t length = 0;
    bool has_length = false;
    for (std::string_view name : {"Content-Length: ", "content-length: "}) {
      auto pos = block.find(name);
      if (pos != std::string_view::npos) {
        length = std::stoul(std::string(block.substr(pos + name.size(), 12)));
        has_length = true;
      }
    }
    if (!has_length) return false;  // close-delimited
    std::size_t body = head ? 0 : length;
    if (raw.size() < body) return false;
    raw.remove_prefix(body);
    if (raw.empty()) return true;
  }
}

}  // namespace

// What came back for `bytes` until the peer closed (`closed`) or was quiet
// for `quiet` (50 ms once a complete response is in).
std::string http_exchange(int port, std::string_view bytes, bool& closed, ms quiet) {
  const bool head = bytes.starts_with("HEAD ");
  Exchange e = exchange(port, bytes, false, quiet, [head](std::string_view received) {
    return response_complete(received, head);
  });
  closed = e.closed;
  return e.received;
}

// The responses in `raw`, one block each: the status line, the headers but
// Date (names lower-cased, sorted), the body; then "<closed>" or "<open>".
// `head`: the requests were HEAD (no bodies follow the headers).
std::string canonical_http(std::string_view raw, bool closed, bool head) {
  std::string out;
  while (!raw.empty()) {
    auto end = raw.find("\r\n\r\n");
    if (end == std::string_view::npos) {
      out += "<partial head> " + printable(raw) + "\n";
      raw = {};
      break;
    }
    std::string_view block = raw.substr(0, end);
    raw.remove_prefix(end + 4);
    auto eol = block.find("\r\n");
    std::string status(block.substr(0, eol));
    std::vector<std::string> headers;
    long length = -1;
    while (eol != std::string_view::npos) {
      block.remove_prefix(eol + 2);
      eol = block.find("\r\n");
      std::string_view line = block.substr(0, eol);
      auto colon = line.find(':');
      std::string name(line.substr(0, colon));
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value(colon == std::string_view::npos ? "" : line.substr(colon + 1));
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      if (name == "date") continue;
      if (name == "content-length") length = std::stol(value);
      headers.push_back(name + ": " + value);
    }
    std::sort(headers.begin(), headers.end());
    out += status + "\n";
    for (const auto& h : headers) out += "  " + h + "\n";
    const bool informational = status.size() > 9 && status[9] == '1';
    if (informational || head) continue;
    std::size_t take = length < 0 ? raw.size() : std::min<std::size_t>(raw.size(), length);
    out += "  body: " + printable(raw.substr(0, take)) + "\n";
    raw.remove_prefix(take);
  }
  out += closed ? "<closed>" : "<open>";
  return out;
}

// `text` with each of `ports` as "PORT".
std::string normalise_ports(std::string text, const std::vector<int>& ports) {
  for (int port : ports) {
    std::string p = std::to_string(port);
    for (auto pos = text.find(p); pos != std::string::npos; pos = text.find(p, pos)) {
      text.replace(pos, p.size(), "PORT");
    }
  }
  return text;
}

// The canonical answer of 127.0.0.1:port to `bytes`.
std::string http_answer(int port, std::string_view bytes, const std::vector<int>& ports, ms quiet) {
  bool closed = false;
  std::string raw = http_exchange(port, bytes, closed, quiet);
  return normalise_ports(canonical_http(raw, closed, bytes.starts_with("HEAD ")), ports);
}

namespace {

class HttpDiff : public DifferentialTest {
 protected:
  std::string go_answer(std::string_view bytes, ms quiet = ms(300)) {
    return http_answer(go().http_port(), bytes, {go().http_port(), go().tcp_port()}, quiet);
  }
  std::string our_answer(std::string_view bytes, ms quiet = ms(300)) {
    return http_answer(ours().http_port(), bytes, {ours().http_port(), ours().tcp_port()}, quiet);
  }
  void expect_same(std::string_view bytes, ms quiet = ms(1000)) {
    std::string theirs = go_answer(bytes, quiet);
    std::string mine = our_answer(bytes, quiet);
    EXPECT_EQ(mine, theirs) << "ours (left) and Go's (right) differ for: " << printable(bytes);
  }
  // GET `path` with a Host header, on a connection of its own.
  void expect_same_get(const std::string& method, const std::string& target,
                       const std::string& body = {}) {
    std::string req = method + " " + target + " HTTP/1.1\r\nHost: x\r\n";
    if (method != "GET" && method != "HEAD") {
      req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
    expect_same(req + "\r\n" + body);
  }
};

// Go's router cleans paths and redirects (301 for GET, 307 otherwise, the
// query kept), answers 405 with Allow, and 404 where no table has the path.
TEST_F(HttpDiff, RoutingRedirectsAndMethods) {
  ASSERT_TRUE(start_both());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"POST", "//pub?topic=t"},
      {"POST", "/PUB?topic=t"},
      {"POST", "/Pub/?topic=t"},
      {"POST", "//pub?"},
      {"GET", "/PING"},
      {"GET", "//ping"},
      {"GET", "/./ping"},
      {"GET", "/x/../ping"},
      {"GET", "/ping/."},
      {"GET", "/Info"},
      {"GET", "/ping/"},
      {"GET", "/pub/"},
      {"GET", "/pub"},
      {"GET", "/topic/create/"},
      {"POST", "/topic/create/?topic=a&x=%41"},
      {"POST", "/TOPIC/CREATE?topic=a"},
      {"POST", "/ping/"},
      {"POST", "/ping"},
      {"PUT", "/ping"},
      {"DELETE", "/ping"},
      {"DELETE", "/config/log_level"},
      {"GET", "/config/"},
      {"GET", "/config"},
      {"GET", "/config/log_level/"},
      {"GET", "/CONFIG/log_level"},
      {"GET", "/Config/Log_Level"},
      {"GET", "/config//log_level"},
      {"GET", "/debug/pprof"},
      {"GET", "/debug/pprof/mutex"},
      {"GET", "/debug/setblockrate"},
      {"GET", "/debug/freememory"},
      {"POST", "/debug/freememory/"},
      {"GET", "/"},
      {"GET", "/nope"},
      {"GET", "/p%69ng"},
      {"GET", "/PI%4eG"},
      {"GET", "/a%20b/../ping"},
      {"GET", "/st%61ts/?format=json&topic=x"},
      {"GET", "*"},
      {"POST", "*"},
      {"OPTIONS", "*"},
      {"OPTIONS", "/ping"},
      {"OPTIONS", "/pub"},
      {"OPTIONS", "/config/x"},
      {"OPTIONS", "/nope"},
      {"OPTIONS", "/PING"},
      {"HEAD", "/ping"},
      {"HEAD", "/stats"},
      {"HEAD", "/PING"},
      {"HEAD", "/nope"},
      {"PATCH", "/pub"},
      {"get", "/ping"},
      {"POST", "/topic/create?topic=empty_ok"},
      {"POST", "/channel/create?topic=empty_ok&channel=c"},
      {"POST", "/topic/pause?topic=empty_ok"},
      {"POST", "/debug/freememory"},
  };
  for (const auto& [method, target] : cases) {
    SCOPED_TRACE(method + " " + target);
    expect_same_get(method, target);
  }
  // A redirect keeps the absolute form's scheme and authority.
  expect_same("GET http://example.com//ping?a=b HTTP/1.1\r\nHost: x\r\n\r\n");
}

// Requests net/http refuses before any handler: its exact bytes.
TEST_F(HttpDiff, MalformedRequests) {
  ASSERT_TRUE(start_both());
  for (std::string req : {
           "GET /ping HTTP/1.1\r\n\r\n",
           "GET /ping HTTP/2.0\r\nHost: x\r\n\r\n",
           "GET /ping HTTP/3.1\r\nHost: x\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x y\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x@y\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nX: a\x01"
           "b\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
           "GET ping HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /p%zz HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /ping HTTP/1.0\r\n\r\n",
           "GET /ping HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost:\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
           "POST /topic/create?topic=a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
           "Content-Length: 0\r\n\r\n",
       }) {
    SCOPED_TRACE(printable(req));
    expect_same(req);
  }
}

// Header lines as Go's textproto reads them: a bare LF ends a line, a field
// with an empty name is skipped, a folded (continued) field is joined, a
// first field line that starts with white space is refused.
TEST_F(HttpDiff, HeaderLineForms) {
  ASSERT_TRUE(start_both());
  for (std::string req : {
           "GET /ping HTTP/1.1\nHost: x\n\n",
           "GET /ping HTTP/1.1\r\nHost: x\n\r\n",
           "GET /ping HTTP/1.1\nHost: x\r\n\n",
           "POST /pub?topic=lf HTTP/1.1\nHost: x\nContent-Length: 2\n\nab",
           "POST /pub?topic=lf HTTP/1.1\nHost: x\nContent-Length: 2\n\nab"
           "GET /ping HTTP/1.1\nHost: x\nConnection: close\n\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\n:\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n",
           "GET /ping HTTP/1.1\r\n Host: x\r\n\r\n",
           "GET /ping HTTP/1.1\r\n\tHost: x\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nX-A: a\r\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nX\rA: ab\r\n\r\n",
           "GET /pi\rng HTTP/1.1\r\nHost: x\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nX-A:\tv\t\r\n\r\n",
           "\r\nGET /ping HTTP/1.1\r\nHost: x\r\n\r\n",
           "\nGET /ping HTTP/1.1\nHost: x\n\n",
       }) {
    SCOPED_TRACE(printable(req));
    expect_same(req);
  }
}

// /pub and /mpub refuse a declared length over the limit before reading the
// body, and without "100 Continue".
TEST_F(HttpDiff, BodyLimitsBeforeTheBody) {
  ASSERT_TRUE(start_both());
  for (std::string req : {
           "POST /pub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n",
           "POST /pub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n",
           "POST /mpub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 5242881\r\n\r\n",
           "POST /pub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n"
           "Expect: 100-continue\r\n\r\n",
           "POST /mpub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 6000000\r\n"
           "Expect: 100-continue\r\n\r\n",
           "POST /pub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
           "Expect: 100-continue\r\n\r\n",
           "POST /pub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
           "Expect: 100-continue\r\n\r\nabc",
       }) {
    SCOPED_TRACE(printable(req));
    expect_same(req);
  }
}

// GET /config/:opt shows what Go shows: the ports listened on for unset
// broadcast ports, the expanded statsd prefix; PUT takes what Go's
// json.Unmarshal takes.
TEST_F(HttpDiff, Config) {
  ASSERT_TRUE(start_both());
  for (const char* opt :
       {"broadcast_tcp_port", "broadcast_http_port", "statsd_prefix", "broadcast_address",
        "tcp_address", "http_address", "https_address", "nsqlookupd_tcp_addresses", "log_level",
        "id_x", "statsd_address", "max_msg_size", "msg_timeout",
        "e2e_processing_latency_percentiles", "tls_required", "tls_min_version", "deflate",
        "max_deflate_level", "sync_publish"}) {
    SCOPED_TRACE(opt);
    expect_same_get("GET", std::string("/config/") + opt);
  }
  // The odd one is shown as json.Marshal writes it: < > & U+2028 U+2029
  // escaped, \b \f as \u0008 \u000c, DEL and other UTF-8 as they are. The
  // last ones hold bytes that are not UTF-8, which Go's decoder stores as
  // U+FFFD.
  for (const char* body : {"null", "[\"127.0.0.1:1\",\"127.0.0.1:1\"]", "[\"a\"]", "[]",
                           " [ \"\\u0031:2\" ] ", "[1]", "{}", "\"x\"", "[\"a\"] x", "", "nul",
                           "[\"a<b>&c\\u2028\\u2029\\b\\f\\u0001\\u007f\\\"\\\\ "
                           "\xc3\xa9\xe2\x80\xa8x\"]",
                           "[\"bad\xff"
                           "host:1\"]",
                           "[\"\xe2\x80:2\",\"\xc0\xaf:3\"]"}) {
    SCOPED_TRACE(body);
    expect_same_get("PUT", "/config/nsqlookupd_tcp_addresses", body);
    expect_same_get("GET", "/config/nsqlookupd_tcp_addresses");
  }
  expect_same_get("PUT", "/config/log_level", "warn");
  expect_same_get("GET", "/config/log_level");
}

// With --statsd-prefix and broadcast ports given, and an IPv4 broadcast address.
TEST_F(HttpDiff, ConfigWithBroadcastFlags) {
  ASSERT_TRUE(start_both({"--broadcast-address=127.0.0.1", "--broadcast-tcp-port=4150",
                          "--broadcast-http-port=4151", "--statsd-prefix=a.%s.b%s"}));
  for (const char* opt :
       {"broadcast_tcp_port", "broadcast_http_port", "statsd_prefix", "broadcast_address"}) {
    SCOPED_TRACE(opt);
    expect_same_get("GET", std::string("/config/") + opt);
  }
  ASSERT_TRUE(start_both({"--statsd-prefix="}));
  expect_same_get("GET", "/config/statsd_prefix");
}

// Percentiles are float64s as json.Marshal writes them (0.000001, then 1e-7).
TEST_F(HttpDiff, ConfigPercentiles) {
  ASSERT_TRUE(start_both({"--e2e-processing-latency-percentile=1",
                          "--e2e-processing-latency-percentile=0.123456789012345678",
                          "--e2e-processing-latency-percentile=0.000001",
                          "--e2e-processing-latency-percentile=0.0000001"}));
  expect_same_get("GET", "/config/e2e_processing_latency_percentiles");
}

}  // namespace
}  // namespace nsq::differential
