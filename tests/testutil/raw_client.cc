#include "testutil/raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "nsq/endian.h"
#include "nsq/message.h"
#include "nsq/mpub.h"

namespace nsq::testutil {

namespace {

using Clock = std::chrono::steady_clock;

// `host`: an IPv4 address. The send timeout also bounds the connect (a
// host cut off never answers the SYN).
int connect_to(const std::string& host, int port, std::chrono::milliseconds io_timeout) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return -1;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  // A blocked send (server not reading) must not hang a test forever.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(io_timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((io_timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

int remaining_ms(Clock::time_point deadline) {
  auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

}  // namespace

std::string RawClient::ReadResult::describe() const {
  switch (status) {
    case ReadStatus::frame:
      return "frame type " + std::to_string(static_cast<int>(frame.type)) + " '" +
             (frame.type == FrameType::message ? std::string("<message>") : frame.data) + "'";
    case ReadStatus::timeout:
      return "timeout";
    case ReadStatus::closed:
      return "closed by peer";
    case ReadStatus::error:
      return "read error";
  }
  return "?";
}

RawClient::~RawClient() { close(); }

RawClient::RawClient(RawClient&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      decoder_(std::move(other.decoder_)),
      eof_(other.eof_),
      before_close_(std::move(other.before_close_)) {}

RawClient& RawClient::operator=(RawClient&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    decoder_ = std::move(other.decoder_);
    eof_ = other.eof_;
    before_close_ = std::move(other.before_close_);
  }
  return *this;
}

bool RawClient::connect(int port) { return connect("127.0.0.1", port); }

bool RawClient::connect(const std::string& host, int port) {
  close();
  fd_ = connect_to(host, port, std::chrono::milliseconds(10000));
  decoder_ = FrameDecoder();
  eof_ = false;
  return fd_ >= 0;
}

void RawClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawClient::send_raw(std::string_view bytes) { return fd_ >= 0 && send_all(fd_, bytes); }

bool RawClient::send_with_body(std::string_view line, std::string_view body) {
  std::string out(line);
  append_u32be(out, static_cast<uint32_t>(body.size()));
  out.append(body);
  return send_raw(out);
}

bool RawClient::sub(std::string_view topic, std::string_view channel) {
  return send_raw("SUB " + std::string(topic) + " " + std::string(channel) + "\n");
}

bool RawClient::pub(std::string_view topic, std::string_view body) {
  return send_with_body("PUB " + std::string(topic) + "\n", body);
}

bool RawClient::mpub(std::string_view topic, const std::vector<std::string>& bodies) {
  std::vector<std::string_view> views(bodies.begin(), bodies.end());
  std::string body;
  append_mpub_body(body, views);
  return send_with_body("MPUB " + std::string(topic) + "\n", body);
}

bool RawClient::dpub(std::string_view topic, int64_t defer_ms, std::string_view body) {
  return send_with_body("DPUB " + std::string(topic) + " " + std::to_string(defer_ms) + "\n", body);
}

bool RawClient::fin(std::string_view id) { return send_raw("FIN " + std::string(id) + "\n"); }

bool RawClient::req(std::string_view id, int64_t timeout_ms) {
  return send_raw("REQ " + std::string(id) + " " + std::to_string(timeout_ms) + "\n");
}

bool RawClient::touch(std::string_view id) { return send_raw("TOUCH " + std::string(id) + "\n"); }

RawClient::ReadResult RawClient::read(std::chrono::milliseconds timeout) {
  ReadResult r;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (auto f = decoder_.next()) {
      r.status = ReadStatus::frame;
      r.frame = std::move(*f);
      return r;
    }
    if (decoder_.error()) {
      r.status = ReadStatus::error;
      return r;
    }
    if (eof_ || fd_ < 0) {
      r.status = ReadStatus::closed;
      return r;
    }
    pollfd p{fd_, POLLIN, 0};
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      r.status = ReadStatus::timeout;
      return r;
    }
    if (n < 0) {
      r.status = ReadStatus::error;
      return r;
    }
    char buf[65536];
    ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0 || (got < 0 && (errno == ECONNRESET || errno == EPIPE))) {
      eof_ = true;
      continue;  // frames already buffered are still returned first
    }
    if (got < 0) {
      r.status = ReadStatus::error;
      return r;
    }
    decoder_.put(std::string_view(buf, static_cast<std::size_t>(got)));
  }
}

RawClient::ReadResult RawClient::read_skip_heartbeats(std::chrono::milliseconds timeout,
                                                      bool answer) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    auto r = read(std::chrono::milliseconds(remaining_ms(deadline)));
    if (r.status == ReadStatus::frame && r.frame.type == FrameType::response &&
        r.frame.data == "_heartbeat_") {
      if (answer) nop();
      continue;
    }
    return r;
  }
}

bool RawClient::wait_closed(std::chrono::milliseconds timeout) {
  before_close_.clear();
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    auto r = read(std::chrono::milliseconds(remaining_ms(deadline)));
    switch (r.status) {
      case ReadStatus::frame:
        before_close_.push_back(std::move(r.frame));
        continue;
      case ReadStatus::closed:
        return true;
      case ReadStatus::timeout:
        return false;
      case ReadStatus::error:
        // A broken stream after garbage: only a real close counts.
        if (fd_ < 0) return true;
        {
          char buf[4096];
          for (;;) {
            pollfd p{fd_, POLLIN, 0};
            int n = ::poll(&p, 1, remaining_ms(deadline));
            if (n <= 0) return false;
            ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
            if (got == 0 || (got < 0 && errno == ECONNRESET)) return true;
            if (got < 0 && errno != EINTR) return false;
          }
        }
    }
  }
}

std::optional<TestMessage> to_test_message(const Frame& frame) {
  if (frame.type != FrameType::message) return std::nullopt;
  auto m = decode_message(frame.data);
  if (!m) return std::nullopt;
  TestMessage t;
  t.timestamp_ns = m->header.timestamp_ns;
  t.attempts = m->header.attempts;
  t.id.assign(m->header.id.data(), m->header.id.size());
  t.body = std::string(m->body);
  return t;
}

std::optional<HttpResponse> http_request(int port, std::string_view method, std::string_view target,
                                         std::string_view body, std::chrono::milliseconds timeout) {
  int fd = connect_to("127.0.0.1", port, timeout);
  if (fd < 0) return std::nullopt;
  std::string req =
      std::string(method) + " " + std::string(target) + " HTTP/1.0\r\nHost: 127.0.0.1\r\n" +
      "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  req += body;
  if (!send_all(fd, req)) {
    ::close(fd);
    return std::nullopt;
  }
  std::string in;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    char buf[65536];
    ssize_t got = ::recv(fd, buf, sizeof buf, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    in.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fd);
  auto header_end = in.find("\r\n\r\n");
  if (in.rfind("HTTP/", 0) != 0 || header_end == std::string::npos) return std::nullopt;
  HttpResponse r;
  r.status = std::atoi(in.c_str() + in.find(' ') + 1);
  r.headers = in.substr(0, header_end);
  r.body = in.substr(header_end + 4);
  // Chunked replies are possible with HTTP/1.1 servers that ignore 1.0.
  std::string lower = r.headers;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("transfer-encoding: chunked") != std::string::npos) {
    std::string out;
    std::size_t pos = 0;
    while (pos < r.body.size()) {
      auto eol = r.body.find("\r\n", pos);
      if (eol == std::string::npos) break;
      std::size_t len = std::stoul(r.body.substr(pos, eol - pos), nullptr, 16);
      if (len == 0) break;
      out += r.body.substr(eol + 2, len);
      pos = eol + 2 + len + 2;
    }
    r.body = out;
  }
  return r;
}

}  // namespace nsq::testutil
