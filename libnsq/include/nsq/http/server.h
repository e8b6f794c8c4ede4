#pragma once

// A small HTTP/1.1 server for the HTTP APIs of nsqd, nsqlookupd and nsqadmin.
// The Asio/Beast code stays in libnsq/src/http; this header includes neither.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "nsq/http/message.h"
#include "nsq/io_pool.h"

namespace boost::asio::ssl {
class context;
}

namespace nsq::http {

// Called once per request on one of the server's I/O threads; it must not block.
// It calls `reply` exactly once, from any thread, now or later (e.g. after a disk
// write on another thread). Later calls are ignored. If every copy of `reply` is
// destroyed uncalled, or the handler throws before replying, the client gets 500.
// A reply that arrives after the connection closed, or after Server::stop(), is
// dropped. Requests on one connection are handled one at a time, in order.
using ReplyFn = std::function<void(Response)>;
using Handler = std::function<void(Request, ReplyFn reply)>;

struct ServerOptions {
  // Larger bodies are not read: the handler gets Request::body_too_big and the
  // connection is closed after its response. Set it to the largest body any
  // endpoint accepts; handlers check tighter per-path limits themselves.
  std::size_t max_body_size = 5 * 1024 * 1024;
  // Set: the largest body this request may have, asked once its header is
  // complete (the Request has no body yet). A larger Content-Length is not
  // read and "100 Continue" is not sent: the handler gets body_too_big at once
  // (as a Go handler checking req.ContentLength before reading the body).
  std::function<std::size_t(const Request& head)> body_limit;
  // Request line + header fields, blank line included; larger → 431 and
  // close. (Go's net/http allows 1 MiB + 4096: docs/compatibility.md.)
  std::size_t max_header_size = 64 * 1024;
  // From the first byte of a request to its last (headers and body): a client
  // that trickles bytes is closed when this passes (slowloris).
  std::chrono::milliseconds read_timeout{60'000};
  // Waiting for the next request on a kept-alive connection (longer than Go's
  // client-side 90 s IdleConnTimeout, so clients close first).
  std::chrono::milliseconds idle_timeout{180'000};
  // Writing one response; a client that does not read is closed.
  std::chrono::milliseconds write_timeout{60'000};
  // The server's own threads, one io_context each; a connection stays on the
  // thread it was accepted onto. The handler runs there.
  int io_threads = 1;
  // How each of those threads runs its context (IoPool::RunLoop); empty:
  // io_context::run().
  IoPool::RunLoop run_loop;
  // Set: an HTTPS listener; every connection starts with a TLS server
  // handshake with this context (shared, not modified by the server).
  std::shared_ptr<boost::asio::ssl::context> tls;
};

// Owns a listener, its connections and its I/O threads.
//
// Thread safety: listen(), start(), stop() and the destructor are called from
// one controlling thread, never from a handler (stop() joins the I/O threads).
// port() and bound_address() are safe once listen() returned.
class Server {
 public:
  // log_error receives accept failures and handler exceptions (may be empty).
  Server(ServerOptions options, Handler handler,
         std::function<void(std::string_view)> log_error = {});
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds "host:port", "[v6]:port" or ":port" (all IPv4 interfaces); port 0 picks
  // a free one. Returns "" or an error message such as
  // "listen tcp 127.0.0.1:4151: address already in use". Once, before start().
  std::string listen(const std::string& address);
  std::uint16_t port() const;         // after listen()
  std::string bound_address() const;  // e.g. "127.0.0.1:4151", "[::1]:4151"

  void start();  // starts the I/O threads and accepting; once
  // Closes the listener and every connection (pending replies are dropped),
  // waits for them, then joins the I/O threads. Idempotent.
  void stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsq::http
