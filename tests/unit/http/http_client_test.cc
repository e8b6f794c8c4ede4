// nsq::http::request / get / parse_url / query_escape: against our own
// nsq::http::Server and against a raw socket peer answering canned bytes
// (chunked, close-delimited, silent).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nsq/http/client.h"
#include "nsq/http/server.h"

namespace nsq::http {
namespace {

using namespace std::chrono_literals;

// Accepts one connection, reads the request head, writes `answer` and
// closes (or keeps silent when answer is empty, until destruction).
class CannedPeer {
 public:
  explicit CannedPeer(std::string answer) : answer_(std::move(answer)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(listen_fd_, 4);
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~CannedPeer() {
    ::shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    ::close(listen_fd_);
  }
  std::uint16_t port() const { return port_; }
  std::string request() {
    std::lock_guard lock(mu_);
    return request_;
  }

 private:
  void serve() {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    {
      std::lock_guard lock(mu_);
      request_ = got;
    }
    if (!answer_.empty()) {
      ::send(fd, answer_.data(), answer_.size(), MSG_NOSIGNAL);
    } else {
      // Silent: wait for the client to give up and close.
      while (::recv(fd, buf, sizeof buf, 0) > 0) {
      }
    }
    ::close(fd);
  }

  std::string answer_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::string request_;  // guarded by mu_
};

TEST(ParseUrl, HostPortPathQuery) {
  auto u = parse_url("http://127.0.0.1:8080/a/b?x=1&y=%s");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->authority, "127.0.0.1:8080");
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 8080);
  EXPECT_EQ(u->target, "/a/b?x=1&y=%s");
}

TEST(ParseUrl, Defaults) {
  auto u = parse_url("HTTP://example.com");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->authority, "example.com");
  EXPECT_EQ(u->host, "example.com");
  EXPECT_EQ(u->port, 80);
  EXPECT_EQ(u->target, "/");
  auto q = parse_url("http://h?x=1#frag");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->target, "/?x=1");
}

TEST(ParseUrl, Ipv6) {
  auto u = parse_url("http://[::1]:4151/pub");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 4151);
  EXPECT_EQ(u->target, "/pub");
}

TEST(ParseUrl, Errors) {
  EXPECT_FALSE(parse_url("127.0.0.1:80/x"));
  EXPECT_EQ(parse_url("ftp://h/").error(), "unsupported protocol scheme \"ftp\"");
  EXPECT_FALSE(parse_url("http:///x"));
  EXPECT_FALSE(parse_url("http://h:99999/"));
  EXPECT_FALSE(parse_url("http://h:abc/"));
  EXPECT_FALSE(parse_url("http://u:p%zz@h/"));
  EXPECT_FALSE(parse_url("http://u:p@/"));
}

TEST(ParseUrl, HttpsDefaultsTo443) {
  auto u = parse_url("HTTPS://graphite.example/render?x=1");
  ASSERT_TRUE(u) << u.error();
  EXPECT_TRUE(u->https);
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->authority, "graphite.example");
  EXPECT_EQ(u->target, "/render?x=1");
  auto p = parse_url("https://[::1]:8443");
  ASSERT_TRUE(p) << p.error();
  EXPECT_TRUE(p->https);
  EXPECT_EQ(p->port, 8443);
  EXPECT_FALSE(parse_url("http://h")->https);
}

TEST(ParseUrl, UserInfoKeptApartFromTheHost) {
  auto u = parse_url("http://us%40er:pa:ss@127.0.0.1:8080/x");
  ASSERT_TRUE(u) << u.error();
  EXPECT_TRUE(u->has_user_info);
  EXPECT_EQ(u->username, "us@er");
  EXPECT_EQ(u->password, "pa:ss");  // the first ':' splits, as Go
  EXPECT_EQ(u->authority, "127.0.0.1:8080");
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 8080);
  auto only_user = parse_url("https://bob@h/");
  ASSERT_TRUE(only_user);
  EXPECT_TRUE(only_user->has_user_info);
  EXPECT_EQ(only_user->username, "bob");
  EXPECT_EQ(only_user->password, "");
  EXPECT_FALSE(parse_url("http://h/a@b")->has_user_info);  // '@' in the path
}

TEST(BasicAuth, Rfc7617Example) {
  EXPECT_EQ(basic_auth("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  EXPECT_EQ(basic_auth("a", ""), "Basic YTo=");
  EXPECT_EQ(basic_auth("ab", "c"), "Basic YWI6Yw==");
}

TEST(QueryEscape, GoRules) {
  EXPECT_EQ(query_escape("a b&c=d/é~-_."), "a+b%26c%3Dd%2F%C3%A9~-_.");
  EXPECT_EQ(query_escape(std::string("\0\n", 2)), "%00%0A");
}

TEST(Request, PostToServerWithHeadersAndBody) {
  std::mutex mu;
  Request seen;
  Server server({}, [&](Request r, ReplyFn reply) {
    {
      std::lock_guard lock(mu);
      seen = r;
    }
    Response resp;
    resp.status = 201;
    resp.body = "made";
    reply(std::move(resp));
  });
  ASSERT_EQ(server.listen("127.0.0.1:0"), "");
  server.start();

  ClientRequest req;
  req.method = "POST";
  req.host = "127.0.0.1";
  req.port = server.port();
  req.target = "/in?x=1";
  req.headers = {{"User-Agent", "nsq_to_http v1.3.0"}, {"Content-Type", "text/plain"}};
  req.body = "hello";
  auto resp = request(req);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 201);
  EXPECT_EQ(resp->body, "made");
  std::lock_guard lock(mu);
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.target, "/in?x=1");
  EXPECT_EQ(seen.body, "hello");
  EXPECT_EQ(seen.header("user-agent").value_or(""), "nsq_to_http v1.3.0");
  EXPECT_EQ(seen.header("content-type").value_or(""), "text/plain");
}

TEST(KeptConnection, RequestsShareOneConnection) {
  std::mutex mu;
  std::vector<std::string> peers;
  Server server({}, [&](Request r, ReplyFn reply) {
    {
      std::lock_guard lock(mu);
      peers.push_back(r.remote_address);
    }
    Response resp;
    resp.body = r.body;
    reply(std::move(resp));
  });
  ASSERT_EQ(server.listen("127.0.0.1:0"), "");
  server.start();
  KeptConnection connection;
  ClientRequest req;
  req.method = "POST";
  req.host = "127.0.0.1";
  req.port = server.port();
  for (int i = 0; i < 5; ++i) {
    req.body = "n" + std::to_string(i);
    auto resp = connection.request(req);
    ASSERT_TRUE(resp) << resp.error();
    EXPECT_EQ(resp->body, req.body);
  }
  std::lock_guard lock(mu);
  ASSERT_EQ(peers.size(), 5u);
  for (const auto& p : peers) EXPECT_EQ(p, peers[0]) << "one connection for all";
}

// send() returns before the answer; receive() reads it; a send() while an
// answer is due drops that answer first, so each receive() gets its own.
TEST(KeptConnection, SendReturnsBeforeTheAnswerAndReceiveReadsIt) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  Server server({}, [&](Request r, ReplyFn reply) {
    if (r.body == "held") {
      // Bounded: a send() that waited for this answer fails the test
      // instead of hanging it.
      std::unique_lock lock(mu);
      if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return release; })) r.body = "late";
    }
    Response resp;
    resp.body = r.body;
    reply(std::move(resp));
  });
  ASSERT_EQ(server.listen("127.0.0.1:0"), "");
  server.start();
  KeptConnection connection;
  ClientRequest req;
  req.method = "POST";
  req.host = "127.0.0.1";
  req.port = server.port();
  EXPECT_FALSE(connection.receive()) << "nothing was sent";
  req.body = "held";
  ASSERT_TRUE(connection.send(req));  // answered only once released
  EXPECT_TRUE(connection.awaiting());
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  auto held = connection.receive();
  ASSERT_TRUE(held) << held.error();
  EXPECT_EQ(held->body, "held");
  EXPECT_FALSE(connection.awaiting());
  req.body = "dropped";
  ASSERT_TRUE(connection.send(req));
  req.body = "kept";
  ASSERT_TRUE(connection.send(req));
  auto kept = connection.receive();
  ASSERT_TRUE(kept) << kept.error();
  EXPECT_EQ(kept->body, "kept");
}

// The server closes a kept connection after reading the next request
// without answering it (as at its idle timeout): the request goes again
// on a new connection.
TEST(KeptConnection, ARequestTheServerDroppedGoesAgainOnANewConnection) {
  int listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listen_fd, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  auto read_head = [](int fd) {
    std::string got;
    char buf[4096];
    while (got.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return false;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  };
  auto answer = [](int fd, std::string_view body) {
    std::string out = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                      "\r\n\r\n" + std::string(body);
    ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
  };
  std::thread peer([&] {
    int first = ::accept(listen_fd, nullptr, nullptr);
    if (read_head(first)) answer(first, "one");
    read_head(first);
    ::close(first);  // the second request, unanswered
    int second = ::accept(listen_fd, nullptr, nullptr);
    if (read_head(second)) answer(second, "two");
    ::close(second);
  });
  KeptConnection connection;
  ClientRequest req;
  req.host = "127.0.0.1";
  req.port = ntohs(addr.sin_port);
  auto one = connection.request(req);
  auto two = connection.request(req);
  peer.join();
  ::close(listen_fd);
  ASSERT_TRUE(one) << one.error();
  EXPECT_EQ(one->body, "one");
  ASSERT_TRUE(two) << two.error();
  EXPECT_EQ(two->body, "two");
}

TEST(Request, EmptyPostSendsContentLengthZero) {
  CannedPeer peer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  ClientRequest req;
  req.method = "POST";
  req.host = "127.0.0.1";
  req.port = peer.port();
  auto resp = request(req);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->body, "ok");
  EXPECT_NE(peer.request().find("Content-Length: 0\r\n"), std::string::npos) << peer.request();
}

TEST(Request, ChunkedResponse) {
  CannedPeer peer(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nX-Trailer: 1\r\n\r\n");
  ClientRequest req;
  req.host = "127.0.0.1";
  req.port = peer.port();
  auto resp = request(req);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->body, "abcdefg");
}

TEST(Request, CloseDelimitedResponse) {
  CannedPeer peer("HTTP/1.0 500 Internal Server Error\r\nX-A:  b \r\n\r\nboom");
  ClientRequest req;
  req.host = "127.0.0.1";
  req.port = peer.port();
  auto resp = request(req);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 500);
  EXPECT_EQ(resp->body, "boom");
  ASSERT_EQ(resp->headers.size(), 1u);
  EXPECT_EQ(resp->headers[0].first, "x-a");
  EXPECT_EQ(resp->headers[0].second, "b");
}

TEST(Request, TruncatedContentLengthIsAnError) {
  CannedPeer peer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
  ClientRequest req;
  req.host = "127.0.0.1";
  req.port = peer.port();
  auto resp = request(req);
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("unexpected EOF"), std::string::npos) << resp.error();
}

TEST(Request, TimesOutOnASilentPeer) {
  CannedPeer peer("");
  ClientRequest req;
  req.host = "127.0.0.1";
  req.port = peer.port();
  req.request_timeout = 200ms;
  auto start = std::chrono::steady_clock::now();
  auto resp = request(req);
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("i/o timeout"), std::string::npos) << resp.error();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(Request, ConnectionRefused) {
  std::uint16_t port = 0;
  {
    CannedPeer peer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    port = peer.port();
    ClientRequest req;
    req.host = "127.0.0.1";
    req.port = port;
    ASSERT_TRUE(request(req));
  }
  ClientRequest req;
  req.host = "127.0.0.1";
  req.port = port;
  auto resp = request(req);
  ASSERT_FALSE(resp);
  EXPECT_EQ(resp.error().rfind("connect 127.0.0.1:", 0), 0u) << resp.error();
}

TEST(Get, StillSpeaksHttp10WithNsqAccept) {
  CannedPeer peer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
  auto resp = get("127.0.0.1", peer.port(), "/lookup?topic=t", 1000ms, 2000ms);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->body, "{}");
  std::string r = peer.request();
  EXPECT_EQ(r.rfind("GET /lookup?topic=t HTTP/1.0\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Accept: application/vnd.nsq; version=1.0\r\n"), std::string::npos);
}

}  // namespace
}  // namespace nsq::http
