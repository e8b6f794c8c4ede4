// nsq::http::Server over real loopback sockets, with a plain POSIX client.

#include "nsq/http/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace nsq::http {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// ---- a minimal blocking client ----

class Client {
 public:
  explicit Client(std::uint16_t port, std::chrono::milliseconds timeout = 5s) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }

  bool send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  struct Reply {
    int status = 0;
    std::string status_line;
    std::map<std::string, std::string> headers;  // lower-cased names
    std::string body;
    std::string header(const std::string& name) const {
      auto it = headers.find(name);
      return it == headers.end() ? std::string() : it->second;
    }
  };

  // Reads one response (Content-Length framed); nullopt on EOF/timeout/garbage.
  // HEAD responses: pass head = true (no body despite Content-Length).
  std::optional<Reply> read_reply(bool head = false) {
    std::size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return std::nullopt;
    }
    Reply r;
    std::string head_text = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    std::size_t line_end = head_text.find("\r\n");
    r.status_line = head_text.substr(0, line_end);
    if (r.status_line.size() < 12) return std::nullopt;
    r.status = std::stoi(r.status_line.substr(9, 3));
    std::size_t pos = line_end;
    while (pos != std::string::npos && pos < head_text.size()) {
      std::size_t next = head_text.find("\r\n", pos + 2);
      std::string line =
          head_text.substr(pos + 2, next == std::string::npos ? std::string::npos : next - pos - 2);
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        r.headers[name] = value;
      }
      pos = next;
    }
    if (r.status == 100) return r;
    std::size_t length = 0;
    if (r.headers.count("content-length")) length = std::stoul(r.headers["content-length"]);
    if (head) length = 0;
    while (buf_.size() < length) {
      if (!fill()) return std::nullopt;
    }
    r.body = buf_.substr(0, length);
    buf_.erase(0, length);
    return r;
  }

  // Waits for the server to close: true on EOF (or reset) within the timeout.
  bool closed_by_peer(std::chrono::milliseconds timeout = 3s) {
    auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      int left = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
      if (::poll(&p, 1, std::max(left, 1)) <= 0) continue;
      char c[4096];
      ssize_t n = ::recv(fd_, c, sizeof c, 0);
      if (n <= 0) return true;
    }
    return false;
  }

  // Whether data or EOF is readable right now (without consuming).
  bool readable(std::chrono::milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, static_cast<int>(wait.count())) > 0;
  }

 private:
  bool fill() {
    char chunk[16384];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buf_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buf_;
};

std::string get(const std::string& target, const std::string& extra = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: test\r\n" + extra + "\r\n";
}

std::string post(const std::string& target, const std::string& body,
                 const std::string& extra = "") {
  return "POST " + target +
         " HTTP/1.1\r\nHost: test\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
         extra + "\r\n" + body;
}

// Describes the request, so tests can check what the handler saw.
std::string describe(const Request& r) {
  std::string out = r.method + " " + r.path + " v" + std::to_string(r.version);
  for (const auto& [k, v] : r.query) out += " [" + k + "=" + v + "]";
  if (r.bad_query) out += " bad_query";
  if (r.body_too_big) out += " too_big";
  out += " body=" + r.body;
  return out;
}

// ---- fixture ----

class HttpServerTest : public ::testing::Test {
 protected:
  void start(ServerOptions options = {}) {
    server_ = std::make_unique<Server>(
        options, [this](Request r, ReplyFn reply) { handle(std::move(r), std::move(reply)); },
        [this](std::string_view m) {
          std::lock_guard lock(mu_);
          errors_.emplace_back(m);
        });
    ASSERT_EQ(server_->listen("127.0.0.1:0"), "");
    ASSERT_NE(server_->port(), 0);
    server_->start();
  }

  void TearDown() override {
    if (server_) server_->stop();
    for (auto& t : repliers_) t.join();
  }

  void handle(Request r, ReplyFn reply) {
    ++requests_;
    Response resp;
    if (r.path == "/later") {
      // Reply from another thread, after the handler returned.
      auto delay = std::chrono::milliseconds(std::stoi(r.query_value("ms").value_or("50")));
      std::lock_guard lock(mu_);
      repliers_.emplace_back([delay, reply = std::move(reply), text = describe(r)] {
        std::this_thread::sleep_for(delay);
        Response later;
        later.body = text;
        reply(later);
      });
      return;
    }
    if (r.path == "/never") {
      std::lock_guard lock(mu_);
      kept_.push_back(std::move(reply));  // kept, never called
      return;
    }
    if (r.path == "/drop") return;  // reply destroyed uncalled → 500
    if (r.path == "/throw") throw std::runtime_error("boom");
    if (r.path == "/twice") {
      Response first;
      first.body = "first";
      reply(first);
      Response second;
      second.body = "second";
      reply(second);
      return;
    }
    if (r.path == "/close") resp.headers.emplace_back("Connection", "close");
    if (r.body_too_big) {
      resp.status = 413;
      resp.content_type = "application/json; charset=utf-8";
      resp.body = R"({"message":"BODY_TOO_BIG"})";
      reply(std::move(resp));
      return;
    }
    resp.headers.emplace_back("X-NSQ-Content-Type", "nsq; version=1.0");
    resp.headers.emplace_back("X-Remote", r.remote_address);
    resp.headers.emplace_back("X-Bad", "a\r\nInjected: yes");  // dropped by the server
    if (auto ua = r.header("User-Agent")) resp.headers.emplace_back("X-UA", *ua);
    resp.body = describe(r);
    reply(std::move(resp));
  }

  std::uint16_t port() const { return server_->port(); }

  std::unique_ptr<Server> server_;
  std::atomic<int> requests_{0};
  std::mutex mu_;
  std::vector<std::string> errors_;    // guarded by mu_
  std::vector<std::thread> repliers_;  // guarded by mu_
  std::vector<ReplyFn> kept_;          // guarded by mu_
};

TEST_F(HttpServerTest, GetWithQuery) {
  start();
  Client c(port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send(get("/a%20b/c?x=1&y=hello+world&x=2&e=&k&z=%41%42", "User-Agent: t/1\r\n")));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status_line, "HTTP/1.1 200 OK");
  EXPECT_EQ(r->body, "GET /a b/c v11 [x=1] [y=hello world] [x=2] [e=] [k=] [z=AB] body=");
  EXPECT_EQ(r->header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r->header("content-length"), std::to_string(r->body.size()));
  EXPECT_EQ(r->header("x-nsq-content-type"), "nsq; version=1.0");
  EXPECT_EQ(r->header("x-ua"), "t/1");
  EXPECT_EQ(r->header("x-remote").rfind("127.0.0.1:", 0), 0u);
  EXPECT_EQ(r->header("x-bad"), "");
  EXPECT_EQ(r->header("injected"), "");
  EXPECT_EQ(r->header("connection"), "");
  EXPECT_EQ(r->header("date").size(), 29u);  // "Mon, 02 Jan 2006 15:04:05 GMT"
  EXPECT_EQ(r->header("date").substr(26), "GMT");
}

TEST_F(HttpServerTest, BadQueryIsFlaggedNotRejected) {
  start();
  Client c(port());
  ASSERT_TRUE(c.send(get("/q?topic=t&x=%zz&a;b=1")));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "GET /q v11 [topic=t] bad_query body=");
}

TEST_F(HttpServerTest, BadPathEscapeIs400) {
  start();
  Client c(port());
  ASSERT_TRUE(c.send(get("/a%zzb")));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_EQ(requests_, 0);
}

TEST_F(HttpServerTest, PostWithBody) {
  start();
  Client c(port());
  std::string body(100000, 'x');
  body[0] = '\0';
  body[1] = '\n';
  ASSERT_TRUE(c.send(post("/pub?topic=t", body)));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "POST /pub v11 [topic=t] body=" + body);
}

TEST_F(HttpServerTest, KeepAliveReusesOneConnection) {
  start();
  Client c(port());
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        c.send(i % 2 ? post("/p", "b" + std::to_string(i)) : get("/g?i=" + std::to_string(i))));
    auto r = c.read_reply();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->body, i % 2 ? "POST /p v11 body=b" + std::to_string(i)
                             : "GET /g v11 [i=" + std::to_string(i) + "] body=");
  }
  EXPECT_FALSE(c.readable(50ms));  // still open, nothing pending
  EXPECT_EQ(requests_, 10);
}

TEST_F(HttpServerTest, PipelinedRequestsAnsweredInOrder) {
  start();
  Client c(port());
  // The first reply comes late from another thread; the others must wait for it.
  std::string all = get("/later?ms=100") + post("/p", "two") + get("/three") + get("/later?ms=10") +
                    post("/five", "5");
  ASSERT_TRUE(c.send(all));
  std::vector<std::string> want = {
      "GET /later v11 [ms=100] body=", "POST /p v11 body=two",
      "GET /three v11 body=", "GET /later v11 [ms=10] body=", "POST /five v11 body=5"};
  for (const auto& w : want) {
    auto r = c.read_reply();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, w);
  }
}

TEST_F(HttpServerTest, PipelinedBytesSplitAcrossRequests) {
  start();
  Client c(port());
  std::string all = post("/a", "hello") + get("/b");
  // Send in odd pieces so request boundaries fall inside reads.
  for (std::size_t i = 0; i < all.size(); i += 7) {
    ASSERT_TRUE(c.send(all.substr(i, 7)));
    std::this_thread::sleep_for(1ms);
  }
  auto a = c.read_reply();
  auto b = c.read_reply();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->body, "POST /a v11 body=hello");
  EXPECT_EQ(b->body, "GET /b v11 body=");
}

TEST_F(HttpServerTest, ChunkedBody) {
  start();
  Client c(port());
  ASSERT_TRUE(
      c.send("POST /mpub?topic=t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
             "5\r\nhello\r\n"
             "1;ext=1\r\n\n\r\n"
             "6\r\nworld!\r\n"
             "0\r\nTrailer: x\r\n\r\n"));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "POST /mpub v11 [topic=t] body=hello\nworld!");
  ASSERT_TRUE(c.send(get("/after")));  // still usable
  auto r2 = c.read_reply();
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->body, "GET /after v11 body=");
}

TEST_F(HttpServerTest, BodyOverLimitByContentLength) {
  ServerOptions o;
  o.max_body_size = 1000;
  start(o);
  {
    Client c(port());
    ASSERT_TRUE(c.send(post("/ok", std::string(1000, 'a'))));  // exactly the limit
    auto r = c.read_reply();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  Client c(port());
  // Only the header is sent: the server must answer without waiting for the body.
  ASSERT_TRUE(c.send("POST /mpub?topic=t HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n"));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_EQ(r->status_line, "HTTP/1.1 413 Request Entity Too Large");
  EXPECT_EQ(r->body, R"({"message":"BODY_TOO_BIG"})");
  EXPECT_EQ(r->header("content-type"), "application/json; charset=utf-8");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(HttpServerTest, BodyOverLimitChunked) {
  ServerOptions o;
  o.max_body_size = 10;
  start(o);
  Client c(port());
  ASSERT_TRUE(
      c.send("POST /mpub HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
             "8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n"));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(HttpServerTest, ExpectContinue) {
  start();
  Client c(port());
  ASSERT_TRUE(
      c.send("POST /pub HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
             "Expect: 100-continue\r\n\r\n"));
  auto interim = c.read_reply();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status_line, "HTTP/1.1 100 Continue");
  ASSERT_TRUE(c.send("body"));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "POST /pub v11 body=body");
}

TEST_F(HttpServerTest, MalformedRequestsGetErrorAndClose) {
  start();
  struct Case {
    std::string bytes;
    int status;
  };
  std::vector<Case> cases = {
      {"GARBAGE\r\n\r\n", 400},
      {"GET /x\r\n\r\n", 400},                                 // no version
      {"GET  /x HTTP/1.1\r\nHost: x\r\n\r\n", 400},            // double space
      {"GET /x HTTP/1.1\r\n\r\n", 400},                        // no Host (Go requires it)
      {"GET /x HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},  // two Hosts
      {"GET x HTTP/1.1\r\nHost: a\r\n\r\n", 400},              // not origin form
      {"GET /x HTTP/1.1\r\nHost: a\r\nBad Header: 1\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400},
      {"POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"GET /x HTTP/2.0\r\nHost: a\r\n\r\n", 505},
      {"GET /x HTTP/1.1\r\nHost: a\r\nExpect: something\r\n\r\n", 417},
      {"GET /x HTTP/1.1\r\nHost: a\r\nX: " + std::string(70000, 'a') + "\r\n\r\n", 431},
  };
  for (const auto& tc : cases) {
    Client c(port());
    ASSERT_TRUE(c.send(tc.bytes));
    auto r = c.read_reply();
    ASSERT_TRUE(r) << tc.bytes.substr(0, 60);
    EXPECT_EQ(r->status, tc.status) << tc.bytes.substr(0, 60);
    EXPECT_EQ(r->header("connection"), "close");
    // Go's own error answers: no Content-Length (the body runs to the close),
    // but 417, an ordinary empty response.
    if (tc.status == 417) {
      EXPECT_EQ(r->header("content-length"), "0");
    } else {
      EXPECT_EQ(r->header("content-length"), "") << tc.bytes.substr(0, 60);
    }
    EXPECT_TRUE(c.closed_by_peer()) << tc.bytes.substr(0, 60);
  }
  EXPECT_EQ(requests_, 0);
}

TEST_F(HttpServerTest, Http10) {
  start();
  {
    Client c(port());
    ASSERT_TRUE(c.send("GET /old HTTP/1.0\r\n\r\n"));  // no Host needed
    auto r = c.read_reply();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status_line, "HTTP/1.0 200 OK");
    EXPECT_EQ(r->body, "GET /old v10 body=");
    EXPECT_EQ(r->header("connection"), "");  // Go says "close" only to HTTP/1.1
    EXPECT_TRUE(c.closed_by_peer());
  }
  Client c(port());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.send("GET /ka HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    auto r = c.read_reply();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->header("connection"), "keep-alive");
  }
}

TEST_F(HttpServerTest, ConnectionCloseFromClientAndHandler) {
  start();
  {
    Client c(port());
    ASSERT_TRUE(c.send(get("/x", "Connection: close\r\n")));
    auto r = c.read_reply();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->header("connection"), "close");
    EXPECT_TRUE(c.closed_by_peer());
  }
  Client c(port());
  ASSERT_TRUE(c.send(get("/close")));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(HttpServerTest, HeadHasNoBody) {
  start();
  Client c(port());
  ASSERT_TRUE(c.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n" + get("/next")));
  auto r = c.read_reply(/*head=*/true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-length"), std::to_string(std::string("HEAD /h v11 body=").size()));
  auto next = c.read_reply();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "GET /next v11 body=");  // no stray body bytes in between
}

TEST_F(HttpServerTest, ReplyLaterFromAnotherThread) {
  start();
  Client c(port());
  auto t0 = Clock::now();
  ASSERT_TRUE(c.send(get("/later?ms=200")));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_GE(Clock::now() - t0, 190ms);
  EXPECT_EQ(r->body, "GET /later v11 [ms=200] body=");
  ASSERT_TRUE(c.send(get("/now")));
  ASSERT_TRUE(c.read_reply());
}

TEST_F(HttpServerTest, HandlerFailuresGive500) {
  start();
  Client c(port());
  ASSERT_TRUE(c.send(get("/drop")));
  auto r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  ASSERT_TRUE(c.send(get("/throw")));
  r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  ASSERT_TRUE(c.send(get("/twice")));
  r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "first");
  ASSERT_TRUE(c.send(get("/ok")));
  r = c.read_reply();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "GET /ok v11 body=");
  std::lock_guard lock(mu_);
  ASSERT_EQ(errors_.size(), 1u);
  EXPECT_NE(errors_[0].find("boom"), std::string::npos);
}

TEST_F(HttpServerTest, SlowlorisIsClosedWhileOthersAreServed) {
  ServerOptions o;
  o.read_timeout = 500ms;
  o.idle_timeout = 10s;
  start(o);  // one I/O thread: the slow client must not hold it
  std::atomic<bool> slow_closed{false};
  Clock::duration slow_lifetime{};
  std::thread slow([&] {
    Client c(port());
    std::string request = get("/slow", "X-Padding: " + std::string(100, 'p') + "\r\n");
    auto t0 = Clock::now();
    for (char ch : request) {
      if (!c.send(std::string(1, ch))) break;
      if (c.readable(100ms)) break;  // the server closed (EOF readable)
    }
    slow_closed = c.closed_by_peer(2s);
    slow_lifetime = Clock::now() - t0;
  });
  std::this_thread::sleep_for(150ms);
  for (int i = 0; i < 3; ++i) {
    Client fast(port());
    auto t0 = Clock::now();
    ASSERT_TRUE(fast.send(get("/fast")));
    auto r = fast.read_reply();
    ASSERT_TRUE(r);
    EXPECT_LT(Clock::now() - t0, 100ms);
  }
  slow.join();
  EXPECT_TRUE(slow_closed);
  EXPECT_GE(slow_lifetime, 450ms);
  EXPECT_LT(slow_lifetime, 1500ms);
  EXPECT_EQ(requests_, 3);
}

TEST_F(HttpServerTest, SlowBodyIsClosedToo) {
  ServerOptions o;
  o.read_timeout = 300ms;
  start(o);
  Client c(port());
  auto t0 = Clock::now();
  ASSERT_TRUE(c.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"));
  EXPECT_TRUE(c.closed_by_peer(2s));
  EXPECT_LT(Clock::now() - t0, 1s);
  EXPECT_EQ(requests_, 0);
}

TEST_F(HttpServerTest, IdleConnectionIsClosed) {
  ServerOptions o;
  o.idle_timeout = 300ms;
  o.read_timeout = 5s;
  start(o);
  Client c(port());
  ASSERT_TRUE(c.send(get("/x")));
  ASSERT_TRUE(c.read_reply());
  auto t0 = Clock::now();
  EXPECT_TRUE(c.closed_by_peer(2s));
  EXPECT_GE(Clock::now() - t0, 250ms);
  EXPECT_LT(Clock::now() - t0, 1s);
}

TEST_F(HttpServerTest, ManyConcurrentConnections) {
  ServerOptions o;
  o.io_threads = 4;
  start(o);
  constexpr int kConns = 200;
  constexpr int kRounds = 5;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kConns; ++i) {
    clients.push_back(std::make_unique<Client>(port()));
    ASSERT_TRUE(clients.back()->connected());
  }
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kConns; ++i) {
      std::string id = std::to_string(i) + "." + std::to_string(round);
      ASSERT_TRUE(clients[i]->send(round % 2 ? post("/c", id) : get("/later?ms=1&id=" + id)));
    }
    for (int i = 0; i < kConns; ++i) {
      std::string id = std::to_string(i) + "." + std::to_string(round);
      auto r = clients[i]->read_reply();
      ASSERT_TRUE(r) << id;
      EXPECT_EQ(r->body, round % 2 ? "POST /c v11 body=" + id
                                   : "GET /later v11 [ms=1] [id=" + id + "] body=");
    }
  }
  EXPECT_EQ(requests_, kConns * kRounds);
}

TEST_F(HttpServerTest, ManyClientThreads) {
  ServerOptions o;
  o.io_threads = 2;
  start(o);
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int conn = 0; conn < 5; ++conn) {
        Client c(port());
        for (int i = 0; i < 20; ++i) {
          std::string body = std::to_string(t) + "/" + std::to_string(i);
          if (!c.send(post("/m", body))) return;
          auto r = c.read_reply();
          if (r && r->body == "POST /m v11 body=" + body) ++ok;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 8 * 5 * 20);
}

TEST_F(HttpServerTest, StopWithIdleConnectionsIsPrompt) {
  start();
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 20; ++i) {
    idle.push_back(std::make_unique<Client>(port()));
    if (i % 2) {
      ASSERT_TRUE(idle.back()->send(get("/x")));
      ASSERT_TRUE(idle.back()->read_reply());
    }
  }
  Client partial(port());
  ASSERT_TRUE(partial.send("GET /x HTTP/1.1\r\nHo"));
  std::this_thread::sleep_for(50ms);
  auto t0 = Clock::now();
  server_->stop();
  EXPECT_LT(Clock::now() - t0, 500ms);
  for (auto& c : idle) EXPECT_TRUE(c->closed_by_peer(1s));
  EXPECT_TRUE(partial.closed_by_peer(1s));
  Client late(port());
  EXPECT_FALSE(late.connected());
}

TEST_F(HttpServerTest, StopWithPendingReplyIsPromptAndLateReplyIsSafe) {
  start();
  Client c(port());
  ASSERT_TRUE(c.send(get("/never")));
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (!kept_.empty()) break;
    }
    std::this_thread::sleep_for(1ms);
  }
  auto t0 = Clock::now();
  server_->stop();
  EXPECT_LT(Clock::now() - t0, 500ms);
  EXPECT_TRUE(c.closed_by_peer(1s));
  server_.reset();  // io_contexts gone: the reply must not touch them
  std::lock_guard lock(mu_);
  kept_[0](Response{});
  kept_.clear();  // and destroying it (already replied) is fine
}

TEST_F(HttpServerTest, ListenErrors) {
  start();
  Server other(ServerOptions{}, [](Request, ReplyFn reply) { reply(Response{}); });
  std::string err = other.listen("127.0.0.1:" + std::to_string(port()));
  EXPECT_EQ(err, "listen tcp 127.0.0.1:" + std::to_string(port()) + ": address already in use");
  Server bad(ServerOptions{}, [](Request, ReplyFn reply) { reply(Response{}); });
  EXPECT_NE(bad.listen("no-port"), "");
  EXPECT_NE(bad.listen("127.0.0.1:99999"), "");
  EXPECT_NE(bad.listen("127.0.0.1:http"), "");
  EXPECT_EQ(bad.listen(":0"), "");
  EXPECT_EQ(bad.bound_address(), "0.0.0.0:" + std::to_string(bad.port()));
  EXPECT_EQ(server_->bound_address(), "127.0.0.1:" + std::to_string(port()));
}

TEST_F(HttpServerTest, DestructorWithoutStartOrStop) {
  Server s(ServerOptions{}, [](Request, ReplyFn reply) { reply(Response{}); });
  EXPECT_EQ(s.listen("127.0.0.1:0"), "");
  Server never_listened(ServerOptions{}, [](Request, ReplyFn reply) { reply(Response{}); });
  never_listened.start();
}

}  // namespace
}  // namespace nsq::http
