#include "nsq/dial.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace nsq::net {

void SocketFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string host_port(const std::string& host, std::uint16_t port) {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    const int remaining_ms = static_cast<int>(std::max<std::int64_t>(0, left.count()));
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, remaining_ms);
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

tl::expected<SocketFd, std::string> dial(const std::string& host, std::uint16_t port,
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
    SocketFd fd(
        ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.is_open()) continue;
    const auto connect_deadline = std::min(deadline, Clock::now() + connect_timeout);
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
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return tl::unexpected("write " + where + ": " + std::strerror(errno));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

tl::expected<std::size_t, std::string> recv_some(int fd, char* buf, std::size_t size,
                                                 Clock::time_point deadline,
                                                 const std::string& where) {
  for (;;) {
    if (!wait_for(fd, POLLIN, deadline)) return tl::unexpected("read " + where + ": i/o timeout");
    const ssize_t n = ::recv(fd, buf, size, 0);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR && errno != EAGAIN) {
      return tl::unexpected("read " + where + ": " + std::strerror(errno));
    }
  }
}

}  // namespace nsq::net
