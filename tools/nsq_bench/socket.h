#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace nsq::bench {

// Errors here are text for the user ("connect 127.0.0.1:4150: Connection
// refused"): the tool prints them and exits.
template <class T>
using Expected = tl::expected<T, std::string>;

// read_some's error when the peer closed the connection (an EOF is an error
// everywhere except at the end of the loopback measurement).
inline constexpr std::string_view kPeerClosed = "connection closed by peer";

// A blocking TCP socket (owner of the fd). Reads take a timeout so that the
// connection threads can notice the stop flags. After IDENTIFY it may carry
// TLS and snappy or deflate (start_tls, start_snappy, start_deflate): reads
// and writes then go through those layers.
//
// @par Thread Safety: none; one thread uses it at a time.
class Socket {
 public:
  Socket();
  explicit Socket(int fd) noexcept;
  Socket(Socket&& other) noexcept;
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  int fd() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }

  Expected<void> write_all(std::string_view bytes);
  // Up to buf.size() bytes; 0 when nothing came within timeout. The peer
  // closing is the error kPeerClosed.
  Expected<std::size_t> read_some(std::span<char> buf, std::chrono::nanoseconds timeout);
  void shutdown_write() noexcept;

  // TLS client handshake (no certificate verification: a load generator).
  Expected<void> start_tls();
  // Compression from now on; `already_read` is compressed input received
  // before the switch (decoded first).
  Expected<void> start_snappy(std::string_view already_read);
  Expected<void> start_deflate(int level, std::string_view already_read);

 private:
  struct Layers;  // TLS and codecs (socket_layers.cc)
  Expected<std::size_t> read_raw(std::span<char> buf, std::chrono::nanoseconds timeout);
  Expected<std::size_t> read_blocking(std::span<char> buf, std::chrono::nanoseconds timeout);
  Expected<void> write_raw(std::string_view bytes);
  Expected<std::size_t> read_layered(std::span<char> buf, std::chrono::nanoseconds timeout);
  Expected<void> write_layered(std::string_view bytes);

  // Reads waiting at least this long block in recv (read_blocking); shorter
  // ones (a paced sender's next send is due) poll.
  static constexpr std::chrono::milliseconds kBlockingReadMin{10};

  int fd_ = -1;
  std::chrono::nanoseconds recv_timeout_{0};  // SO_RCVTIMEO as set, 0 = none
  std::unique_ptr<Layers> layers_;            // null on the plain path
};

// "host:port" or "[v6]:port", with TCP_NODELAY set (requests are small and
// a reply is awaited, Nagle would add up to 40 ms).
Expected<Socket> connect_tcp(std::string_view address);

// A listening socket on 127.0.0.1 with a kernel-chosen port, for up to
// `backlog` connections not accepted yet.
struct Listener {
  Socket socket;
  int port = 0;
};
Expected<Listener> listen_loopback(int backlog = 1);
Expected<Socket> accept_one(const Listener& listener);

// Splits "host:port" / "[host]:port"; false if malformed.
bool split_host_port(std::string_view address, std::string& host, std::string& port);

}  // namespace nsq::bench
