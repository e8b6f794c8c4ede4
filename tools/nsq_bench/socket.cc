#include "socket.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace nsq::bench {
namespace {

std::string errno_text(std::string_view what) {
  std::string s(what);
  s += ": ";
  s += std::strerror(errno);
  return s;
}

}  // namespace

Expected<void> Socket::write_all(std::string_view bytes) {
  if (layers_) return write_layered(bytes);
  return write_raw(bytes);
}

Expected<std::size_t> Socket::read_some(std::span<char> buf, std::chrono::nanoseconds timeout) {
  if (layers_) return read_layered(buf, timeout);
  return read_raw(buf, timeout);
}

Expected<void> Socket::write_raw(std::string_view bytes) {
  while (!bytes.empty()) {
    // MSG_NOSIGNAL: a closed peer is an error to report, not a SIGPIPE.
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(errno_text("write"));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Expected<std::size_t> Socket::read_raw(std::span<char> buf, std::chrono::nanoseconds timeout) {
  if (timeout >= kBlockingReadMin) return read_blocking(buf, timeout);
  for (;;) {
    // Try first: when data is waiting (the busy case) this is the only syscall.
    const ssize_t n = ::recv(fd_, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n > 0) return static_cast<std::size_t>(n);
    if (n == 0) return tl::unexpected(std::string(kPeerClosed));
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return tl::unexpected(errno_text("read"));
    if (timeout <= std::chrono::nanoseconds::zero()) return 0;
    pollfd p{fd_, POLLIN, 0};
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const timespec ts{static_cast<time_t>(secs.count()),
                      static_cast<long>((timeout - secs).count())};
    const int r = ::ppoll(&p, 1, &ts, nullptr);
    if (r < 0 && errno != EINTR) return tl::unexpected(errno_text("poll"));
    if (r == 0) return 0;
    timeout = std::chrono::nanoseconds::zero();  // readable (or EINTR): one more recv
  }
}

// One syscall per read: a blocking recv bounded by SO_RCVTIMEO, which is set
// again only when the timeout changes (the unpaced loops always pass the same
// one). A publisher waiting for its OK would otherwise pay a recv that finds
// nothing, a poll and a second recv for every reply.
Expected<std::size_t> Socket::read_blocking(std::span<char> buf, std::chrono::nanoseconds timeout) {
  if (timeout != recv_timeout_) {
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const timeval tv{
        static_cast<time_t>(secs.count()),
        static_cast<suseconds_t>(
            std::chrono::duration_cast<std::chrono::microseconds>(timeout - secs).count())};
    if (::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
      return tl::unexpected(errno_text("setsockopt SO_RCVTIMEO"));
    }
    recv_timeout_ = timeout;
  }
  for (;;) {
    const ssize_t n = ::recv(fd_, buf.data(), buf.size(), 0);
    if (n > 0) return static_cast<std::size_t>(n);
    if (n == 0) return tl::unexpected(std::string(kPeerClosed));
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;  // timed out
    return tl::unexpected(errno_text("read"));
  }
}

void Socket::shutdown_write() noexcept {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

bool split_host_port(std::string_view address, std::string& host, std::string& port) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == address.size()) return false;
  std::string_view h = address.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  host.assign(h);
  port.assign(address.substr(colon + 1));
  return true;
}

Expected<Socket> connect_tcp(std::string_view address) {
  std::string host;
  std::string port;
  if (!split_host_port(address, host, port)) {
    return tl::unexpected("invalid address \"" + std::string(address) + "\": want host:port");
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (const int rc =
          ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res);
      rc != 0) {
    return tl::unexpected("resolve " + std::string(address) + ": " + ::gai_strerror(rc));
  }
  std::string last_error = "connect " + std::string(address) + ": no address";
  Socket result;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    Socket s(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!s.valid()) {
      last_error = errno_text("socket");
      continue;
    }
    if (::connect(s.fd(), ai->ai_addr, ai->ai_addrlen) != 0) {
      last_error = errno_text("connect " + std::string(address));
      continue;
    }
    const int one = 1;
    ::setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    result = std::move(s);
    break;
  }
  ::freeaddrinfo(res);
  if (!result.valid()) return tl::unexpected(last_error);
  return result;
}

Expected<Listener> listen_loopback(int backlog) {
  Socket s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return tl::unexpected(errno_text("socket"));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(s.fd(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return tl::unexpected(errno_text("bind 127.0.0.1:0"));
  }
  if (::listen(s.fd(), backlog) != 0) return tl::unexpected(errno_text("listen"));
  socklen_t len = sizeof addr;
  if (::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return tl::unexpected(errno_text("getsockname"));
  }
  return Listener{std::move(s), ntohs(addr.sin_port)};
}

Expected<Socket> accept_one(const Listener& listener) {
  for (;;) {
    const int fd = ::accept4(listener.socket.fd(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) return Socket(fd);
    if (errno != EINTR) return tl::unexpected(errno_text("accept"));
  }
}

}  // namespace nsq::bench
