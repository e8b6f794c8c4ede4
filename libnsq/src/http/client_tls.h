#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "nsq/dial.h"
#include "nsq/http/client.h"

namespace nsq::http::detail {

using Clock = std::chrono::steady_clock;

using net::wait_for;

// One client TLS session over a connected non-blocking socket that the
// caller owns and keeps open for the session's life. Blocking calls with a
// deadline, like the plain exchange: OpenSSL's WANT_READ/WANT_WRITE become
// a poll. Not thread-safe; one request uses it from one thread.
class TlsSession {
 public:
  // Builds the context from `tls` (roots, client certificate), sends SNI
  // and checks the certificate against `host` (or tls.server_name), then
  // runs the handshake. `where` ("host:port") only names the peer in errors.
  static tl::expected<TlsSession, std::string> handshake(int fd, const ClientTls& tls,
                                                         const std::string& host,
                                                         const std::string& where,
                                                         Clock::time_point deadline);

  tl::expected<void, std::string> send_all(std::string_view data, Clock::time_point deadline);
  // Bytes read into buf, 0 at the end of the stream.
  tl::expected<std::size_t, std::string> recv(char* buf, std::size_t size,
                                              Clock::time_point deadline);

  TlsSession(TlsSession&&) noexcept;
  TlsSession& operator=(TlsSession&&) = delete;
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;
  ~TlsSession();

 private:
  struct State;
  explicit TlsSession(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace nsq::http::detail
