#include "testutil/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace nsq::testutil {

namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

int remaining_ms(Clock::time_point deadline) {
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

bool has_header(const HttpClient::Headers& h, std::string_view name) {
  for (auto& [k, v] : h)
    if (lower(k) == lower(name)) return true;
  return false;
}

std::optional<std::string> header_value(const HttpClient::Headers& h, std::string_view name) {
  for (auto& [k, v] : h)
    if (lower(k) == lower(name)) return v;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> HttpReply::header(std::string_view name) const {
  const std::string want = lower(name);
  for (auto& [k, v] : headers)
    if (k == want) return v;
  return std::nullopt;
}

std::string HttpReply::describe() const {
  std::string s = std::to_string(status) + " " + reason + " {";
  for (auto& [k, v] : headers) s += k + ": " + v + "; ";
  s += "} body '" + (body.size() > 2000 ? body.substr(0, 2000) + "…" : body) + "'";
  return s;
}

HttpClient::HttpClient(int port, std::chrono::milliseconds timeout)
    : HttpClient("127.0.0.1", port, timeout) {}

HttpClient::HttpClient(std::string host, int port, std::chrono::milliseconds timeout)
    : host_(std::move(host)), port_(port), timeout_(timeout) {}

HttpClient::~HttpClient() { close(); }

HttpClient::HttpClient(HttpClient&& other) noexcept
    : host_(std::move(other.host_)),
      port_(other.port_),
      timeout_(other.timeout_),
      fd_(std::exchange(other.fd_, -1)),
      eof_(other.eof_),
      buf_(std::move(other.buf_)),
      connects_(other.connects_),
      error_(std::move(other.error_)) {}

HttpClient& HttpClient::operator=(HttpClient&& other) noexcept {
  if (this != &other) {
    close();
    host_ = std::move(other.host_);
    port_ = other.port_;
    timeout_ = other.timeout_;
    fd_ = std::exchange(other.fd_, -1);
    eof_ = other.eof_;
    buf_ = std::move(other.buf_);
    connects_ = other.connects_;
    error_ = std::move(other.error_);
  }
  return *this;
}

void HttpClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  eof_ = false;
  buf_.clear();
}

bool HttpClient::connect() {
  close();
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  if (::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr) != 1) {
    error_ = "not an IPv4 address: " + host_;
    return false;
  }
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error_ = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  // A send to a server that does not read must not block forever.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout_.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout_.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    error_ = std::string("connect: ") + std::strerror(errno);
    ::close(fd);
    return false;
  }
  fd_ = fd;
  ++connects_;
  return true;
}

bool HttpClient::send_raw(std::string_view bytes) {
  if (fd_ < 0) {
    error_ = "not connected";
    return false;
  }
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = std::string("send: ") + std::strerror(errno);
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool HttpClient::fill(Clock::time_point deadline) {
  if (eof_ || fd_ < 0) return false;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = std::string("poll: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) {
      error_ = "timeout";
      return false;
    }
    char buf[16384];
    ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      error_ = std::string("recv: ") + std::strerror(errno);
      eof_ = true;
      return false;
    }
    if (got == 0) {
      error_ = "connection closed by server";
      eof_ = true;
      return false;
    }
    buf_.append(buf, static_cast<std::size_t>(got));
    return true;
  }
}

bool HttpClient::usable() {
  if (fd_ < 0 || eof_) return false;
  if (!buf_.empty()) return false;  // stray bytes: do not mix them into the next reply
  pollfd p{fd_, POLLIN, 0};
  int n = ::poll(&p, 1, 0);
  // Readable while idle means the server closed (or sent something unasked).
  return n == 0;
}

std::optional<HttpReply> HttpClient::fail(std::string why) {
  error_ = std::move(why);
  close();
  return std::nullopt;
}

std::optional<HttpReply> HttpClient::read_response(bool head_request) {
  const auto deadline = Clock::now() + timeout_;
  std::size_t header_end;
  while ((header_end = buf_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(deadline))
      return fail("no complete response head: " + error_ + " (got '" + buf_ + "')");
  }
  HttpReply r;
  std::string_view head(buf_.data(), header_end);
  auto eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  if (status_line.rfind("HTTP/", 0) != 0)
    return fail("bad status line '" + std::string(status_line) + "'");
  auto sp1 = status_line.find(' ');
  if (sp1 == std::string_view::npos)
    return fail("bad status line '" + std::string(status_line) + "'");
  r.version = std::string(status_line.substr(0, sp1));
  r.status = std::atoi(std::string(status_line.substr(sp1 + 1, 3)).c_str());
  if (status_line.size() > sp1 + 5) r.reason = std::string(status_line.substr(sp1 + 5));
  std::size_t pos = eol == std::string_view::npos ? head.size() : eol + 2;
  while (pos < head.size()) {
    auto e = head.find("\r\n", pos);
    if (e == std::string_view::npos) e = head.size();
    std::string_view line = head.substr(pos, e - pos);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) return fail("bad header line '" + std::string(line) + "'");
    r.headers.emplace_back(lower(trim(line.substr(0, colon))), trim(line.substr(colon + 1)));
    pos = e + 2;
  }
  buf_.erase(0, header_end + 4);

  auto conn = r.header("connection");
  std::string conn_l = conn ? lower(*conn) : "";
  if (r.version == "HTTP/1.0")
    r.connection_close = conn_l.find("keep-alive") == std::string::npos;
  else
    r.connection_close = conn_l.find("close") != std::string::npos;

  auto te = r.header("transfer-encoding");
  auto cl = r.header("content-length");
  bool no_body =
      head_request || r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200);
  if (no_body) {
    // nothing
  } else if (te && lower(*te).find("chunked") != std::string::npos) {
    for (;;) {
      std::size_t e;
      while ((e = buf_.find("\r\n")) == std::string::npos)
        if (!fill(deadline)) return fail("chunked body cut: " + error_);
      std::size_t len = std::strtoul(buf_.substr(0, e).c_str(), nullptr, 16);
      buf_.erase(0, e + 2);
      if (len == 0) {
        // Trailers (none expected) up to the empty line.
        for (;;) {
          while ((e = buf_.find("\r\n")) == std::string::npos)
            if (!fill(deadline)) return fail("chunked trailer cut: " + error_);
          bool empty = e == 0;
          buf_.erase(0, e + 2);
          if (empty) break;
        }
        break;
      }
      while (buf_.size() < len + 2)
        if (!fill(deadline)) return fail("chunk cut: " + error_);
      r.body += buf_.substr(0, len);
      buf_.erase(0, len + 2);
    }
  } else if (cl) {
    std::size_t len = std::strtoul(cl->c_str(), nullptr, 10);
    while (buf_.size() < len)
      if (!fill(deadline))
        return fail("body cut at " + std::to_string(buf_.size()) + " of " + *cl + ": " + error_);
    r.body = buf_.substr(0, len);
    buf_.erase(0, len);
  } else {
    // Delimited by the end of the connection.
    while (fill(deadline)) {
    }
    if (!eof_) return fail("body without length not ended by close: " + error_);
    r.body = std::move(buf_);
    buf_.clear();
    r.connection_close = true;
  }
  if (r.connection_close) close();
  return r;
}

std::optional<HttpReply> HttpClient::request(std::string_view method, std::string_view target,
                                             std::string_view body, const Headers& headers) {
  if (!usable() && !connect()) return std::nullopt;
  std::string req = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\n";
  if (!has_header(headers, "host")) req += "Host: " + host_ + ":" + std::to_string(port_) + "\r\n";
  auto te = header_value(headers, "transfer-encoding");
  bool chunked = te && lower(*te).find("chunked") != std::string::npos;
  if (!chunked && !has_header(headers, "content-length") &&
      (!body.empty() || method == "POST" || method == "PUT"))
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  for (auto& [k, v] : headers) req += k + ": " + v + "\r\n";
  req += "\r\n";
  if (chunked) {
    char hex[32];
    for (std::size_t off = 0; off < body.size(); off += 64) {
      auto piece = body.substr(off, 64);
      std::snprintf(hex, sizeof hex, "%zx\r\n", piece.size());
      req += hex;
      req += piece;
      req += "\r\n";
    }
    req += "0\r\n\r\n";
  } else {
    req += body;
  }
  if (!send_raw(req)) {
    // The server may answer early (e.g. 413) and close before reading all
    // of the body: still try to read what it said.
    auto r = read_response(method == "HEAD");
    if (r) return r;
    return fail("send failed and no response: " + error_);
  }
  auto conn = header_value(headers, "connection");
  auto r = read_response(method == "HEAD");
  if (r && conn && lower(*conn) == "close") close();
  return r;
}

bool HttpClient::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (fill(deadline)) buf_.clear();
  bool closed = eof_;
  if (closed) close();
  return closed;
}

std::optional<HttpReply> http_once(int port, std::string_view method, std::string_view target,
                                   std::string_view body, const HttpClient::Headers& headers,
                                   std::chrono::milliseconds timeout) {
  HttpClient c(port, timeout);
  auto r = c.request(method, target, body, headers);
  c.close();
  return r;
}

}  // namespace nsq::testutil
