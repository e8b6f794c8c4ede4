#include "nsq/http/client.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <cctype>

namespace nsq::http {
namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
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

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

tl::expected<ClientResponse, std::string> get(const std::string& host, std::uint16_t port,
                                              const std::string& path_and_query,
                                              std::chrono::milliseconds connect_timeout,
                                              std::chrono::milliseconds request_timeout,
                                              std::size_t max_body) {
  std::string where = host + ":" + std::to_string(port);
  auto deadline = Clock::now() + request_timeout;
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
        last_error = "connect " + where + ": " + (errno == EINPROGRESS ? "i/o timeout" : std::strerror(errno));
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

    std::string request = "GET " + path_and_query + " HTTP/1.0\r\nHost: " + where +
                          "\r\nAccept: application/vnd.nsq; version=1.0\r\n"
                          "User-Agent: nsq-cpp\r\nConnection: close\r\n\r\n";
    std::string_view pending = request;
    while (!pending.empty()) {
      if (!wait_for(fd.get(), POLLOUT, deadline)) return tl::unexpected("write " + where + ": i/o timeout");
      ssize_t n = ::send(fd.get(), pending.data(), pending.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        return tl::unexpected("write " + where + ": " + std::strerror(errno));
      }
      pending.remove_prefix(static_cast<std::size_t>(n));
    }

    std::string raw;
    char buf[16384];
    for (;;) {
      if (!wait_for(fd.get(), POLLIN, deadline)) return tl::unexpected("read " + where + ": i/o timeout");
      ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        return tl::unexpected("read " + where + ": " + std::strerror(errno));
      }
      if (n == 0) break;
      raw.append(buf, static_cast<std::size_t>(n));
      if (raw.size() > max_body + 64 * 1024) return tl::unexpected("read " + where + ": response too large");
    }

    auto header_end = raw.find("\r\n\r\n");
    if (header_end == std::string::npos || !raw.starts_with("HTTP/1.")) {
      return tl::unexpected("malformed HTTP response from " + where);
    }
    ClientResponse out;
    std::string_view head(raw.data(), header_end);
    auto line_end = head.find("\r\n");
    std::string_view status_line = head.substr(0, line_end);
    auto sp = status_line.find(' ');
    if (sp == std::string_view::npos) return tl::unexpected("malformed HTTP status from " + where);
    out.status = std::atoi(std::string(status_line.substr(sp + 1, 3)).c_str());
    std::string_view rest = line_end == std::string_view::npos ? std::string_view{} : head.substr(line_end + 2);
    while (!rest.empty()) {
      auto e = rest.find("\r\n");
      std::string_view line = rest.substr(0, e);
      rest = e == std::string_view::npos ? std::string_view{} : rest.substr(e + 2);
      auto colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      out.headers.emplace_back(lower(std::string(line.substr(0, colon))), std::string(value));
    }
    out.body = raw.substr(header_end + 4);
    if (out.body.size() > max_body) return tl::unexpected("response from " + where + " too large");
    return out;
  }
  return tl::unexpected(last_error);
}

}  // namespace nsq::http
