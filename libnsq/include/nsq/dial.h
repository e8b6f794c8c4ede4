#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

// Blocking-style TCP client I/O with deadlines, for threads that talk to one
// server at a time (the HTTP client, a cluster follower's fetches): the
// socket is non-blocking and every wait is a poll() bounded by a deadline.
// Errors read as Go's net package words them: "connect 127.0.0.1:80:
// Connection refused", "read 127.0.0.1:80: i/o timeout".
namespace nsq::net {

using Clock = std::chrono::steady_clock;

// An owned file descriptor, closed with it.
class SocketFd {
 public:
  SocketFd() = default;
  explicit SocketFd(int fd) : fd_(fd) {}
  ~SocketFd() { reset(); }
  SocketFd(SocketFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  SocketFd& operator=(SocketFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  SocketFd(const SocketFd&) = delete;
  SocketFd& operator=(const SocketFd&) = delete;

  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset();

 private:
  int fd_ = -1;
};

// "host:port", with brackets around an IPv6 host.
std::string host_port(const std::string& host, std::uint16_t port);

// Waits for `events` (poll flags) on `fd` until the deadline; false on
// timeout or error.
bool wait_for(int fd, short events, Clock::time_point deadline);

// A connected non-blocking socket to host:port, trying each address in turn,
// each within connect_timeout (and all before the deadline).
tl::expected<SocketFd, std::string> dial(const std::string& host, std::uint16_t port,
                                         std::chrono::milliseconds connect_timeout,
                                         Clock::time_point deadline);

// Writes all of `data`; `where` (host:port) names the peer in errors.
tl::expected<void, std::string> send_all(int fd, std::string_view data, Clock::time_point deadline,
                                         const std::string& where);

// Reads what is there (at least one byte, waiting for it) into buf; 0 at the
// end of the stream.
tl::expected<std::size_t, std::string> recv_some(int fd, char* buf, std::size_t size,
                                                 Clock::time_point deadline,
                                                 const std::string& where);

}  // namespace nsq::net
