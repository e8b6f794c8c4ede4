// nsq::http::Server: listener, connections and I/O threads on Asio coroutines.
// Parsing is sans-I/O (request_parser.cc, the only Beast user); this file only
// moves bytes, keeps deadlines and serializes responses (response.cc).

#include "nsq/http/server.h"

// GCC 12 pairs the inlined coroutine-frame operator new of Asio 1.74's
// awaitable (its recycling allocator) with the wrong delete: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <utility>  // before Asio's awaitable header (Boost 1.74)

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <ctime>
#include <exception>
#include <future>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "http/request_parser.h"
#include "http/response.h"
#include "nsq/io_pool.h"
#include "nsq/listen_address.h"

namespace nsq::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

namespace {

constexpr std::size_t kReadChunk = 16 * 1024;
// After a response that closes the connection: how long and how much unread
// input to drain before closing, so the client reads the response rather than a
// reset (Go's rstAvoidanceDelay, maxPostHandlerReadBytes).
constexpr std::chrono::milliseconds kLingerTime{500};
constexpr std::size_t kLingerBytes = 256 * 1024;
// stop() waits this long for connections to finish closing.
constexpr std::chrono::seconds kStopWait{5};

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

class Session;

// Lets a reply from any thread reach its connection only while the I/O threads
// run: replies post under a shared lock; stop() sets `closed` under the
// exclusive lock before it stops the io_contexts.
struct ReplyGate {
  std::shared_mutex mu;
  bool closed = false;  // guarded by mu
};

// What the server and all its sessions share; owned by Server::Impl, which
// outlives every session.
struct Shared {
  ServerOptions options;
  detail::ParserLimits limits;
  Handler handler;
  std::function<void(std::string_view)> log_error;
  std::shared_ptr<ReplyGate> gate = std::make_shared<ReplyGate>();

  std::mutex mu;
  std::condition_variable cv;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;  // guarded by mu
  bool closing = false;                                           // guarded by mu

  void log(std::string_view message) {
    if (log_error) log_error(message);
  }
};

// Cached per second and per thread: a Date header per response.
const std::string& current_date() {
  thread_local std::time_t cached_second = -1;
  thread_local std::string cached;
  std::time_t now = std::time(nullptr);
  if (now != cached_second) {
    cached_second = now;
    cached = detail::http_date(now);
  }
  return cached;
}

// One connection: reads a request, runs the handler, writes its response, and
// repeats. Lives on one io_context; every member is touched only there, except
// the constant ctx_ used by ReplyState to post back.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, asio::io_context& ctx, Shared& shared)
      : shared_(shared), ctx_(ctx), socket_(std::move(socket)), deadline_(ctx), reply_timer_(ctx) {
    deadline_.expires_at(Clock::time_point::max());  // run() arms it
    error_code ec;
    auto remote = socket_.remote_endpoint(ec);
    if (!ec) remote_ = endpoint_string(remote);
  }

  asio::io_context& context() const { return ctx_; }

  // Each coroutine owns the session through its `self` parameter.
  void start() {
    if (shared_.options.tls) {
      tls_ = std::make_unique<asio::ssl::stream<tcp::socket&>>(socket_, *shared_.options.tls);
    }
    asio::co_spawn(ctx_, run(shared_from_this()), asio::detached);
    asio::co_spawn(ctx_, watchdog(shared_from_this()), asio::detached);
  }

  // On the session's thread.
  void close() {
    if (closed_) return;
    closed_ = true;
    error_code ec;
    socket_.close(ec);
    deadline_.cancel();
    reply_timer_.cancel();
  }

  // On the session's thread: the handler's response to request `seq`.
  void deliver(std::uint64_t seq, Response response) {
    if (closed_ || seq != seq_ || response_) return;
    response_ = std::move(response);
    reply_timer_.cancel();
  }

 private:
  // Unregisters the session when run() ends (or its frame is destroyed).
  struct Registration {
    Shared& shared;
    Session* session;
    ~Registration() {
      std::lock_guard lock(shared.mu);
      shared.sessions.erase(session);
      if (shared.sessions.empty()) shared.cv.notify_all();
    }
  };

  asio::awaitable<void> run(std::shared_ptr<Session> self);
  asio::awaitable<void> watchdog(std::shared_ptr<Session> self);
  asio::awaitable<std::optional<Response>> call_handler(Request request);
  // Returns whether the response went out and the connection is still open.
  asio::awaitable<bool> write_response(const Response& response, int version, bool closing,
                                       bool head);
  asio::awaitable<void> lingering_close();
  // The connection's bytes, through TLS on an HTTPS listener.
  asio::awaitable<std::size_t> read_some(error_code& ec);
  template <class Buffers>
  asio::awaitable<void> write_all(const Buffers& buffers, error_code& ec) {
    if (tls_) {
      co_await asio::async_write(*tls_, buffers, asio::redirect_error(asio::use_awaitable, ec));
    } else {
      co_await asio::async_write(socket_, buffers, asio::redirect_error(asio::use_awaitable, ec));
    }
  }

  void arm(std::chrono::milliseconds timeout) { deadline_.expires_after(timeout); }
  void disarm() { deadline_.expires_at(Clock::time_point::max()); }

  Shared& shared_;
  asio::io_context& ctx_;
  tcp::socket socket_;
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls_;  // over socket_ on HTTPS
  asio::steady_timer deadline_;     // the watchdog closes the socket when it expires
  asio::steady_timer reply_timer_;  // wakes call_handler when the reply arrives
  std::string remote_;
  bool closed_ = false;
  std::uint64_t seq_ = 0;             // current request
  std::optional<Response> response_;  // its reply, once delivered
  std::vector<char> chunk_ = std::vector<char>(kReadChunk);
};

// The state behind one request's ReplyFn. Replies once: the first call wins;
// if none comes before the last copy is destroyed, the client gets a 500.
class ReplyState {
 public:
  ReplyState(std::weak_ptr<Session> session, asio::io_context& ctx, std::shared_ptr<ReplyGate> gate,
             std::uint64_t seq)
      : session_(std::move(session)), ctx_(ctx), gate_(std::move(gate)), seq_(seq) {}
  ReplyState(const ReplyState&) = delete;
  ReplyState& operator=(const ReplyState&) = delete;

  ~ReplyState() {
    if (done_.exchange(true)) return;
    try {
      send(detail::plain_error(500));
    } catch (...) {  // out of memory: the connection stays until it times out or stops
    }
  }

  void reply(Response response) {
    if (done_.exchange(true)) return;
    send(std::move(response));
  }

 private:
  void send(Response response) {
    std::shared_lock lock(gate_->mu);
    if (gate_->closed) return;  // the io_context may be gone
    auto session = session_.lock();
    if (!session) return;
    if (ctx_.get_executor().running_in_this_thread()) {
      session->deliver(seq_, std::move(response));
      return;
    }
    asio::post(
        ctx_, [session = std::move(session), seq = seq_, response = std::move(response)]() mutable {
          session->deliver(seq, std::move(response));
        });
  }

  std::weak_ptr<Session> session_;
  asio::io_context& ctx_;
  std::shared_ptr<ReplyGate> gate_;
  std::uint64_t seq_;
  std::atomic<bool> done_{false};
};

asio::awaitable<void> Session::watchdog(std::shared_ptr<Session> /*self*/) {
  while (!closed_) {
    error_code ec;
    co_await deadline_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (closed_) break;
    // A re-armed timer cancels the wait: only a deadline really passed counts.
    if (deadline_.expiry() <= Clock::now()) close();
  }
}

asio::awaitable<std::size_t> Session::read_some(error_code& ec) {
  if (tls_) {
    co_return co_await tls_->async_read_some(asio::buffer(chunk_),
                                             asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return co_await socket_.async_read_some(asio::buffer(chunk_),
                                             asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> Session::run(std::shared_ptr<Session> /*self*/) {
  Registration registration{shared_, this};
  const ServerOptions& options = shared_.options;
  if (tls_) {
    // The handshake counts as the start of the first request (read deadline).
    arm(options.read_timeout);
    error_code ec;
    co_await tls_->async_handshake(asio::ssl::stream_base::server,
                                   asio::redirect_error(asio::use_awaitable, ec));
    if (ec || closed_) {
      if (!closed_) shared_.log("http: TLS handshake error from " + remote_ + ": " + ec.message());
      close();
      co_return;
    }
  }
  std::string pending;  // received, not yet consumed by a request
  for (;;) {
    detail::RequestParser parser(shared_.limits);
    // The read deadline starts with the request's first byte; before that the
    // connection is idle.
    bool started = !pending.empty();
    arm(started ? options.read_timeout : options.idle_timeout);
    bool continue_sent = false;
    detail::RequestParser::Step step;
    for (;;) {
      step = parser.put(pending);
      pending.erase(0, step.consumed);
      if (step.status != detail::RequestParser::Status::need_more) break;
      error_code ec;
      if (!continue_sent && parser.expects_continue()) {
        continue_sent = true;
        co_await write_all(asio::buffer(kContinue.data(), kContinue.size()), ec);
        if (ec || closed_) break;
      }
      std::size_t n = co_await read_some(ec);
      if (ec || closed_) break;  // eof, reset or deadline: close without a response
      pending.append(chunk_.data(), n);
      if (!started) {
        started = true;
        arm(options.read_timeout);
      }
    }
    if (closed_ || step.status == detail::RequestParser::Status::need_more) break;

    if (step.status == detail::RequestParser::Status::error) {
      arm(options.write_timeout);
      // Go's net/http answers these itself, in its own words.
      std::string bytes =
          detail::go_error_bytes(parser.error_status(), parser.error_reason(), current_date());
      error_code ec;
      co_await write_all(asio::buffer(bytes), ec);
      if (!ec && !closed_) co_await lingering_close();
      break;
    }

    if (!continue_sent && parser.wanted_continue()) {
      error_code ec;
      co_await write_all(asio::buffer(kContinue.data(), kContinue.size()), ec);
      if (ec || closed_) break;
    }
    Request request = parser.take_request();
    request.remote_address = remote_;
    const int version = request.version;
    const bool head = request.method == "HEAD";
    bool keep_alive = request.keep_alive && !request.body_too_big;
    disarm();  // the handler may take its time (e.g. a disk write)
    std::optional<Response> response = co_await call_handler(std::move(request));
    if (!response || closed_) break;
    keep_alive = keep_alive && !detail::response_wants_close(*response);
    if (keep_alive) {
      std::lock_guard lock(shared_.mu);
      keep_alive = !shared_.closing;
    }
    arm(options.write_timeout);
    if (!co_await write_response(*response, version, !keep_alive, head)) break;
    if (!keep_alive) {
      co_await lingering_close();
      break;
    }
  }
  close();
}

asio::awaitable<std::optional<Response>> Session::call_handler(Request request) {
  ++seq_;
  response_.reset();
  {
    auto state = std::make_shared<ReplyState>(weak_from_this(), ctx_, shared_.gate, seq_);
    try {
      shared_.handler(std::move(request), [state](Response r) { state->reply(std::move(r)); });
    } catch (const std::exception& e) {
      shared_.log(std::string("HTTP: handler error - ") + e.what());
      state->reply(detail::plain_error(500));
    } catch (...) {
      shared_.log("HTTP: handler error - unknown exception");
      state->reply(detail::plain_error(500));
    }
  }  // if the handler kept no copy of reply and did not call it: 500 now
  while (!response_ && !closed_) {
    error_code ec;
    reply_timer_.expires_at(Clock::time_point::max());
    co_await reply_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (closed_) co_return std::nullopt;
  co_return std::move(response_);
}

asio::awaitable<bool> Session::write_response(const Response& response, int version, bool closing,
                                              bool head) {
  std::string head_bytes = detail::response_head(response, version, closing, current_date());
  const bool body = !head && detail::status_has_body(response.status) && !response.body.empty();
  std::array<asio::const_buffer, 2> buffers{
      asio::buffer(head_bytes), body ? asio::buffer(response.body) : asio::const_buffer()};
  error_code ec;
  co_await write_all(buffers, ec);
  co_return !ec && !closed_;
}

asio::awaitable<void> Session::lingering_close() {
  error_code ec;
  socket_.shutdown(tcp::socket::shutdown_send, ec);
  arm(kLingerTime);
  std::size_t drained = 0;
  while (!ec && !closed_ && drained < kLingerBytes) {
    drained += co_await read_some(ec);
  }
  close();
}

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

class Server::Impl {
 public:
  Impl(ServerOptions options, Handler handler, std::function<void(std::string_view)> log_error)
      : io_(options.io_threads, options.run_loop), acceptor_(io_.first()) {
    shared_.limits.max_header_size = options.max_header_size;
    shared_.limits.max_body_size = options.max_body_size;
    shared_.limits.body_limit_for = options.body_limit;
    shared_.options = std::move(options);
    shared_.handler = std::move(handler);
    shared_.log_error = std::move(log_error);
  }

  ~Impl() { stop(); }

  std::string listen(const std::string& address) {
    const std::string prefix = "listen tcp " + address + ": ";
    if (acceptor_.is_open() || stopped_) return prefix + "already listening";
    auto colon = address.rfind(':');
    if (colon == std::string::npos) return prefix + "missing port in address";
    std::string host = address.substr(0, colon);
    std::string port = address.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535) {
      return prefix + "invalid port \"" + port + "\"";
    }
    auto port_number = static_cast<unsigned short>(std::stoul(port));
    error_code ec;
    tcp::endpoint endpoint;
    if (host.empty()) {
      endpoint = tcp::endpoint(tcp::v4(), port_number);
    } else {
      auto addr = asio::ip::make_address(host, ec);
      if (!ec) {
        endpoint = tcp::endpoint(addr, port_number);
      } else {
        // A name: the first address it resolves to, IPv4 preferred (blocking, but
        // listen() runs on the controlling thread).
        tcp::resolver resolver(io_.first());
        auto results = resolver.resolve(host, port, ec);
        if (ec || results.empty()) return prefix + "lookup " + host + ": no such host";
        endpoint = results.begin()->endpoint();
        for (const auto& r : results) {
          if (r.endpoint().address().is_v4()) {
            endpoint = r.endpoint();
            break;
          }
        }
      }
    }
    ec = open_listener(acceptor_, endpoint);
    if (!ec) bound_ = acceptor_.local_endpoint(ec);
    if (ec) {
      error_code ignored;
      acceptor_.close(ignored);
      return prefix + lower_first(ec.message());
    }
    return {};
  }

  std::uint16_t port() const { return bound_.port(); }
  std::string bound_address() const { return endpoint_string(bound_); }

  void start() {
    if (started_ || stopped_) return;
    started_ = true;
    if (acceptor_.is_open()) asio::co_spawn(io_.first(), accept_loop(), asio::detached);
    io_.start();
  }

  void stop() {
    if (stopped_) return;
    stopped_ = true;
    {
      std::lock_guard lock(shared_.mu);
      shared_.closing = true;
    }
    if (io_.running()) {
      std::promise<void> closed;
      asio::post(io_.first(), [&] {
        error_code ec;
        acceptor_.close(ec);
        closed.set_value();
      });
      closed.get_future().wait();
    } else {
      error_code ec;
      acceptor_.close(ec);
    }
    std::vector<std::shared_ptr<Session>> sessions;
    {
      std::lock_guard lock(shared_.mu);
      for (auto& [raw, weak] : shared_.sessions) {
        if (auto s = weak.lock()) sessions.push_back(std::move(s));
      }
    }
    for (auto& s : sessions) asio::post(s->context(), [s] { s->close(); });
    sessions.clear();
    if (io_.running()) {
      std::unique_lock lock(shared_.mu);
      if (!shared_.cv.wait_for(lock, kStopWait, [&] { return shared_.sessions.empty(); })) {
        shared_.log("HTTP: " + std::to_string(shared_.sessions.size()) +
                    " connections did not close in time");
      }
    }
    {
      std::unique_lock lock(shared_.gate->mu);
      shared_.gate->closed = true;
    }
    io_.stop();
  }

 private:
  asio::awaitable<void> accept_loop() {
    auto backoff = std::chrono::milliseconds(5);
    asio::steady_timer pause(io_.first());
    for (;;) {
      error_code ec;
      asio::io_context& ctx = io_.next();
      tcp::socket socket =
          co_await acceptor_.async_accept(ctx, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
        // E.g. out of file descriptors: back off rather than spin (as Go does).
        shared_.log("HTTP: accept error - " + ec.message());
        pause.expires_after(backoff);
        co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
        continue;
      }
      backoff = std::chrono::milliseconds(5);
      socket.set_option(tcp::no_delay(true), ec);
      auto session = std::make_shared<Session>(std::move(socket), ctx, shared_);
      {
        std::lock_guard lock(shared_.mu);
        if (shared_.closing) continue;
        shared_.sessions.emplace(session.get(), session);
      }
      session->start();
    }
  }

  // Order matters: sessions destroyed with the io_contexts still use shared_.
  Shared shared_;
  IoPool io_;
  tcp::acceptor acceptor_;
  tcp::endpoint bound_;
  bool started_ = false;
  bool stopped_ = false;
};

Server::Server(ServerOptions options, Handler handler,
               std::function<void(std::string_view)> log_error)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler), std::move(log_error))) {}

Server::~Server() = default;

std::string Server::listen(const std::string& address) { return impl_->listen(address); }
std::uint16_t Server::port() const { return impl_->port(); }
std::string Server::bound_address() const { return impl_->bound_address(); }
void Server::start() { impl_->start(); }
void Server::stop() { impl_->stop(); }

}  // namespace nsq::http
