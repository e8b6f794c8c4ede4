#include "nsq/http/client.h"

#include <fcntl.h>
#include <netdb.h>
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

namespace nsq::http {
namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&&) = delete;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

// Waits for `events` on fd until the deadline; false on timeout or error.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  pollfd p{fd, events, 0};
  for (;;) {
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string host_port(const std::string& host, std::uint16_t port) {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

// A connected non-blocking socket to host:port, trying each address in turn.
tl::expected<Fd, std::string> connect_to(const std::string& host, std::uint16_t port,
                                         std::chrono::milliseconds connect_timeout,
                                         Clock::time_point deadline) {
  const std::string where = host_port(host, port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return tl::unexpected("lookup " + host + ": " + ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addrs(found, ::freeaddrinfo);

  std::string last_error = "connect " + where + ": no address";
  for (addrinfo* ai = addrs.get(); ai != nullptr; ai = ai->ai_next) {
    Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol));
    if (fd.get() < 0) continue;
    auto connect_deadline = std::min(deadline, Clock::now() + connect_timeout);
    if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      if (errno != EINPROGRESS || !wait_for(fd.get(), POLLOUT, connect_deadline)) {
        last_error = "connect " + where + ": " +
                     (errno == EINPROGRESS ? "i/o timeout" : std::strerror(errno));
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        last_error = "connect " + where + ": " + std::strerror(err);
        continue;
      }
    }
    return fd;
  }
  return tl::unexpected(last_error);
}

tl::expected<void, std::string> send_all(int fd, std::string_view data, Clock::time_point deadline,
                                         const std::string& where) {
  while (!data.empty()) {
    if (!wait_for(fd, POLLOUT, deadline)) return tl::unexpected("write " + where + ": i/o timeout");
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return tl::unexpected("write " + where + ": " + std::strerror(errno));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

std::optional<std::uint64_t> parse_number(std::string_view s, int base) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

enum class Decode { done, need_more, bad };

// Decodes a chunked body from the start of `data` into *out (chunk
// extensions and trailers are skipped).
Decode decode_chunked(std::string_view data, std::string* out) {
  out->clear();
  std::size_t pos = 0;
  for (;;) {
    auto eol = data.find("\r\n", pos);
    if (eol == std::string_view::npos) return Decode::need_more;
    std::string_view size_line = data.substr(pos, eol - pos);
    size_line = size_line.substr(0, size_line.find(';'));
    auto size = parse_number(size_line, 16);
    if (!size) return Decode::bad;
    pos = eol + 2;
    if (*size == 0) {
      // Trailers end with an empty line.
      for (;;) {
        auto end = data.find("\r\n", pos);
        if (end == std::string_view::npos) return Decode::need_more;
        if (end == pos) return Decode::done;
        pos = end + 2;
      }
    }
    if (data.size() < pos + *size + 2) return Decode::need_more;
    out->append(data.substr(pos, *size));
    if (data.substr(pos + *size, 2) != "\r\n") return Decode::bad;
    pos += *size + 2;
  }
}

struct Head {
  int status = 0;
  HeaderList headers;
};

std::optional<Head> parse_head(std::string_view head) {
  if (!head.starts_with("HTTP/1.")) return std::nullopt;
  auto line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  auto sp = status_line.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  auto status = parse_number(status_line.substr(sp + 1, 3), 10);
  if (!status) return std::nullopt;
  Head out;
  out.status = static_cast<int>(*status);
  std::string_view rest =
      line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);
  while (!rest.empty()) {
    auto e = rest.find("\r\n");
    std::string_view line = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view{} : rest.substr(e + 2);
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    out.headers.emplace_back(lower(line.substr(0, colon)), std::string(value));
  }
  return out;
}

const std::string* find_header(const HeaderList& headers, std::string_view lower_name) {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return &value;
  }
  return nullptr;
}

// Sends `raw_request` on a new connection and reads one response.
tl::expected<ClientResponse, std::string> exchange(const std::string& host, std::uint16_t port,
                                                   std::string_view raw_request, bool head_request,
                                                   std::chrono::milliseconds connect_timeout,
                                                   std::chrono::milliseconds request_timeout,
                                                   std::size_t max_body) {
  const std::string where = host_port(host, port);
  const auto deadline = Clock::now() + request_timeout;
  auto fd = connect_to(host, port, connect_timeout, deadline);
  if (!fd) return tl::unexpected(fd.error());
  if (auto sent = send_all(fd->get(), raw_request, deadline, where); !sent) {
    return tl::unexpected(sent.error());
  }

  std::string raw;
  std::optional<Head> head;
  std::size_t body_start = 0;
  std::optional<std::uint64_t> content_length;
  bool chunked = false;
  bool eof = false;
  char buf[16384];
  for (;;) {
    if (!head) {
      auto header_end = raw.find("\r\n\r\n");
      if (header_end != std::string::npos) {
        head = parse_head(std::string_view(raw).substr(0, header_end));
        if (!head) return tl::unexpected("malformed HTTP response from " + where);
        body_start = header_end + 4;
        if (const auto* te = find_header(head->headers, "transfer-encoding")) {
          chunked = lower(*te).find("chunked") != std::string::npos;
        }
        if (const auto* cl = find_header(head->headers, "content-length"); cl && !chunked) {
          content_length = parse_number(*cl, 10);
          if (!content_length) return tl::unexpected("malformed HTTP response from " + where);
        }
        if (head_request || head->status / 100 == 1 || head->status == 204 || head->status == 304) {
          content_length = 0;
        }
        if (content_length && *content_length > max_body) {
          return tl::unexpected("response from " + where + " too large");
        }
      } else if (eof) {
        return tl::unexpected("malformed HTTP response from " + where);
      }
    }
    if (head) {
      std::string_view body = std::string_view(raw).substr(body_start);
      ClientResponse out;
      out.status = head->status;
      if (chunked) {
        Decode d = decode_chunked(body, &out.body);
        if (d == Decode::bad) return tl::unexpected("malformed chunked body from " + where);
        if (d == Decode::done) {
          out.headers = std::move(head->headers);
          return out;
        }
        if (eof) return tl::unexpected("read " + where + ": unexpected EOF");
      } else if (content_length) {
        if (body.size() >= *content_length) {
          out.body = std::string(body.substr(0, *content_length));
          out.headers = std::move(head->headers);
          return out;
        }
        if (eof) return tl::unexpected("read " + where + ": unexpected EOF");
      } else if (eof) {
        out.body = std::string(body);
        out.headers = std::move(head->headers);
        return out;
      }
    }
    if (raw.size() > max_body + 64 * 1024) {
      return tl::unexpected("response from " + where + " too large");
    }
    if (!wait_for(fd->get(), POLLIN, deadline))
      return tl::unexpected("read " + where + ": i/o timeout");
    ssize_t n = ::recv(fd->get(), buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return tl::unexpected("read " + where + ": " + std::strerror(errno));
    }
    if (n == 0) {
      eof = true;
    } else {
      raw.append(buf, static_cast<std::size_t>(n));
    }
  }
}

bool has_header(const HeaderList& headers, std::string_view lower_name) {
  for (const auto& [name, value] : headers) {
    if (lower(name) == lower_name) return true;
  }
  return false;
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

tl::expected<ClientResponse, std::string> request(const ClientRequest& req) {
  std::string raw = req.method + " " + (req.target.empty() ? "/" : req.target) + " HTTP/1.1\r\n";
  if (!has_header(req.headers, "host")) raw += "Host: " + host_port(req.host, req.port) + "\r\n";
  for (const auto& [name, value] : req.headers) raw += name + ": " + value + "\r\n";
  if ((!req.body.empty() || req.method == "POST" || req.method == "PUT") &&
      !has_header(req.headers, "content-length")) {
    raw += "Content-Length: " + std::to_string(req.body.size()) + "\r\n";
  }
  if (!has_header(req.headers, "connection")) raw += "Connection: close\r\n";
  raw += "\r\n";
  raw += req.body;
  return exchange(req.host, req.port, raw, req.method == "HEAD", req.connect_timeout,
                  req.request_timeout, req.max_body);
}

tl::expected<Url, std::string> parse_url(std::string_view url) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return tl::unexpected("parse \"" + std::string(url) + "\": missing http:// scheme");
  }
  std::string scheme = lower(url.substr(0, scheme_end));
  if (scheme != "http") return tl::unexpected("unsupported protocol scheme \"" + scheme + "\"");
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find('#'));
  auto authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view target =
      authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) {
    return tl::unexpected("parse \"" + std::string(url) + "\": user info is not supported");
  }

  Url out;
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
    auto port = parse_number(port_text, 10);
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

}  // namespace nsq::http
