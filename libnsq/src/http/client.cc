#include "nsq/http/client.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "http/client_tls.h"
#include "http/response_reader.h"
#include "nsq/base64.h"
#include "nsq/dial.h"

namespace nsq::http {

namespace {

using Clock = detail::Clock;
using net::host_port;
using net::send_all;
using net::SocketFd;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The TLS form of the exchange below, on a connected socket.
tl::expected<ClientResponse, std::string> exchange_tls(
    int fd, const ClientTls& tls, const std::string& host, const std::string& where,
    std::string_view raw_request, bool head_request, Clock::time_point deadline,
    std::size_t max_body) {
  auto session = detail::TlsSession::handshake(fd, tls, host, where, deadline);
  if (!session) return tl::unexpected(session.error());
  if (auto sent = session->send_all(raw_request, deadline); !sent) {
    return tl::unexpected(sent.error());
  }
  std::string raw;
  bool eof = false;
  char buf[16384];
  for (;;) {
    detail::ReadStep step = detail::read_response(raw, eof, head_request, max_body, where);
    if (step.status == detail::ReadStep::Status::done) return std::move(step.response);
    if (step.status == detail::ReadStep::Status::error)
      return tl::unexpected(std::move(step.error));
    auto n = session->recv(buf, sizeof buf, deadline);
    if (!n) return tl::unexpected(n.error());
    if (*n == 0) {
      eof = true;
    } else {
      raw.append(buf, *n);
    }
  }
}

// Reads one response from a plain connection. `received`: whether any byte
// came (a kept connection the server closed before answering has none).
tl::expected<ClientResponse, std::string> read_one(int fd, bool head_request, std::size_t max_body,
                                                   Clock::time_point deadline,
                                                   const std::string& where,
                                                   bool* received = nullptr) {
  std::string raw;
  bool eof = false;
  char buf[65536];
  for (;;) {
    detail::ReadStep step = detail::read_response(raw, eof, head_request, max_body, where);
    if (step.status == detail::ReadStep::Status::done) return std::move(step.response);
    if (step.status == detail::ReadStep::Status::error)
      return tl::unexpected(std::move(step.error));
    auto n = net::recv_some(fd, buf, sizeof buf, deadline, where);
    if (!n) return tl::unexpected(std::move(n.error()));
    if (*n == 0) {
      eof = true;
    } else {
      raw.append(buf, *n);
      if (received) *received = true;
    }
  }
}

// Sends `raw_request` on a new connection and reads one response.
tl::expected<ClientResponse, std::string> exchange(const std::string& host, std::uint16_t port,
                                                   std::string_view raw_request, bool head_request,
                                                   std::chrono::milliseconds connect_timeout,
                                                   std::chrono::milliseconds request_timeout,
                                                   std::size_t max_body,
                                                   const ClientTls* tls = nullptr) {
  const std::string where = host_port(host, port);
  const auto deadline = Clock::now() + request_timeout;
  auto fd = net::dial(host, port, connect_timeout, deadline);
  if (!fd) return tl::unexpected(fd.error());
  if (tls != nullptr)
    return exchange_tls(fd->get(), *tls, host, where, raw_request, head_request, deadline,
                        max_body);
  if (auto sent = send_all(fd->get(), raw_request, deadline, where); !sent) {
    return tl::unexpected(sent.error());
  }
  return read_one(fd->get(), head_request, max_body, deadline, where);
}

bool has_header(const HeaderList& headers, std::string_view lower_name) {
  for (const auto& [name, value] : headers) {
    if (lower(name) == lower_name) return true;
  }
  return false;
}

// Percent-decoding of URL user info; nullopt for a bad escape.
std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    auto byte = detail::parse_number(text.substr(i + 1, 2), 16);
    if (!byte) return std::nullopt;
    out.push_back(static_cast<char>(*byte));
    i += 2;
  }
  return out;
}

}  // namespace

tl::expected<ClientResponse, std::string> get(const std::string& host, std::uint16_t port,
                                              const std::string& path_and_query,
                                              std::chrono::milliseconds connect_timeout,
                                              std::chrono::milliseconds request_timeout,
                                              std::size_t max_body) {
  std::string raw = "GET " + path_and_query + " HTTP/1.0\r\nHost: " + host_port(host, port) +
                    "\r\nAccept: application/vnd.nsq; version=1.0\r\n"
                    "User-Agent: nsq-cpp\r\nConnection: close\r\n\r\n";
  return exchange(host, port, raw, false, connect_timeout, request_timeout, max_body);
}

namespace {

std::string raw_request(const ClientRequest& req, bool keep_alive) {
  std::string raw = req.method + " " + (req.target.empty() ? "/" : req.target) + " HTTP/1.1\r\n";
  if (!has_header(req.headers, "host")) raw += "Host: " + host_port(req.host, req.port) + "\r\n";
  for (const auto& [name, value] : req.headers) raw += name + ": " + value + "\r\n";
  if ((!req.body.empty() || req.method == "POST" || req.method == "PUT") &&
      !has_header(req.headers, "content-length")) {
    raw += "Content-Length: " + std::to_string(req.body.size()) + "\r\n";
  }
  if (!keep_alive && !has_header(req.headers, "connection")) raw += "Connection: close\r\n";
  raw += "\r\n";
  raw += req.body;
  return raw;
}

bool wants_close(const ClientResponse& response) {
  for (const auto& [name, value] : response.headers) {
    if (name == "connection" && lower(value) == "close") return true;
  }
  return false;
}

}  // namespace

tl::expected<ClientResponse, std::string> request(const ClientRequest& req) {
  return exchange(req.host, req.port, raw_request(req, false), req.method == "HEAD",
                  req.connect_timeout, req.request_timeout, req.max_body,
                  req.tls.enable ? &req.tls : nullptr);
}

KeptConnection::~KeptConnection() { close(); }

void KeptConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

tl::expected<ClientResponse, std::string> KeptConnection::request(const ClientRequest& req) {
  if (auto sent = send(req); !sent) return tl::unexpected(std::move(sent.error()));
  return receive();
}

tl::expected<void, std::string> KeptConnection::write(Pending& p) {
  const std::string where = host_port(p.host, p.port);
  p.reused = fd_ >= 0;
  if (!p.reused) {
    auto fd = net::dial(p.host, p.port, p.connect_timeout, p.deadline);
    if (!fd) return tl::unexpected(fd.error());
    // One write per request, sent at once: no wait for the ack of the last.
    const int one = 1;
    ::setsockopt(fd->get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fd_ = fd->release();
    where_ = where;
  }
  auto sent = send_all(fd_, p.raw, p.deadline, where);
  if (!sent) close();
  return sent;
}

tl::expected<void, std::string> KeptConnection::send(const ClientRequest& req) {
  if (awaiting()) (void)receive();
  if (host_port(req.host, req.port) != where_) close();
  Pending p;
  p.raw = raw_request(req, true);
  p.host = req.host;
  p.port = req.port;
  p.head = req.method == "HEAD";
  p.max_body = req.max_body;
  p.connect_timeout = req.connect_timeout;
  p.deadline = Clock::now() + req.request_timeout;
  if (auto sent = write(p); !sent) {
    // A kept connection the server has closed: once more on a new one.
    if (!p.reused) return sent;
    if (auto again = write(p); !again) return again;
  }
  pending_ = std::move(p);
  return {};
}

tl::expected<ClientResponse, std::string> KeptConnection::receive() {
  if (!pending_) return tl::unexpected(std::string("no request awaits an answer"));
  Pending p = std::move(*pending_);
  pending_.reset();
  for (int attempt = 0;; ++attempt) {
    bool received = false;
    auto response = read_one(fd_, p.head, p.max_body, p.deadline, where_, &received);
    if (response && !wants_close(*response)) return response;
    close();
    // The server closed a kept connection before answering (its idle
    // timeout): the request goes once more on a new one.
    if (!response && p.reused && !received && attempt == 0) {
      if (auto sent = write(p); !sent) return tl::unexpected(std::move(sent.error()));
      continue;
    }
    return response;
  }
}

tl::expected<Url, std::string> parse_url(std::string_view url) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return tl::unexpected("parse \"" + std::string(url) + "\": missing http:// scheme");
  }
  std::string scheme = lower(url.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") {
    return tl::unexpected("unsupported protocol scheme \"" + scheme + "\"");
  }
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find('#'));
  auto authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view target =
      authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);

  Url out;
  out.https = scheme == "https";
  out.port = out.https ? 443 : 80;
  // As Go's url.Parse: the user info ends at the last '@' of the authority.
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    std::string_view info = authority.substr(0, at);
    authority.remove_prefix(at + 1);
    auto colon = info.find(':');
    auto user = unescape(info.substr(0, colon));
    auto password = colon == std::string_view::npos ? std::optional<std::string>(std::string())
                                                    : unescape(info.substr(colon + 1));
    if (!user || !password) {
      return tl::unexpected("parse \"" + std::string(url) + "\": invalid userinfo");
    }
    out.has_user_info = true;
    out.username = std::move(*user);
    out.password = std::move(*password);
  }

  out.authority = std::string(authority);
  std::string_view port_text;
  if (authority.starts_with("[")) {
    auto close = authority.find(']');
    if (close == std::string_view::npos) {
      return tl::unexpected("parse \"" + std::string(url) + "\": missing ']' in host");
    }
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':')
        return tl::unexpected("parse \"" + std::string(url) + "\": bad host");
      port_text = after.substr(1);
    }
  } else {
    auto colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty()) return tl::unexpected(std::string("http: no Host in request URL"));
  if (!port_text.empty()) {
    auto port = detail::parse_number(port_text, 10);
    if (!port || *port == 0 || *port > 65535) {
      return tl::unexpected("parse \"" + std::string(url) +
                            "\": invalid port \":" + std::string(port_text) + "\" after host");
    }
    out.port = static_cast<std::uint16_t>(*port);
  }
  out.target =
      target.empty() || target.front() == '?' ? "/" + std::string(target) : std::string(target);
  return out;
}

std::string query_escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string basic_auth(std::string_view username, std::string_view password) {
  return "Basic " + base64::encode(std::string(username) + ":" + std::string(password));
}

}  // namespace nsq::http
