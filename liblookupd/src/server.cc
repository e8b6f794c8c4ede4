#include "lookupd/server.h"

// clang-format off
#include <utility>  // before Asio's awaitable header (Boost 1.74)
// clang-format on

#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "http_api.h"
#include "nsq/hostname.h"
#include "nsq/http/server.h"
#include "nsq/listen_address.h"
#include "registration_db.h"
#include "tcp_conn.h"
#include "v1_session.h"

namespace nsq::lookupd {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Threads: one for the TCP listener and every V1 connection (lookupd traffic
// is a few commands per nsqd every 15 s) and the HTTP server's own.
class Server final : public DaemonServer {
 public:
  Server(Options options, std::shared_ptr<spdlog::logger> log)
      : options_(std::move(options)),
        log_(std::move(log)),
        guard_(io_.get_executor()),
        acceptor_(io_),
        api_(db_, options_, log_) {}

  ~Server() override { stop(); }

  std::string start() override {
    auto endpoint = parse_listen_address(options_.tcp_address);
    if (!endpoint) {
      return "listen (" + options_.tcp_address + ") failed - not a host:port address";
    }
    boost::system::error_code ec = open_listener(acceptor_, *endpoint);
    if (ec) return "listen (" + options_.tcp_address + ") failed - " + ec.message();
    const auto bound = acceptor_.local_endpoint(ec);
    tcp_shown_ = endpoint_string(bound);
    log_->info("TCP: listening on {}", tcp_shown_);

    http_ = std::make_unique<http::Server>(
        http::ServerOptions{},
        [this](http::Request req, http::ReplyFn reply) {
          reply(api_.handle(req, std::chrono::system_clock::now()));
        },
        [log = log_](std::string_view line) { log->error("HTTP: {}", line); });
    if (std::string err = http_->listen(options_.http_address); !err.empty()) {
      return "listen (" + options_.http_address + ") failed - " + err;
    }
    log_->info("HTTP: listening on {}", http_->bound_address());

    identity_.broadcast_address = options_.broadcast_address;
    identity_.hostname = os_hostname();
    identity_.tcp_port = bound.port();
    identity_.http_port = http_->port();

    asio::co_spawn(io_, accept_loop(), asio::detached);
    thread_ = std::thread([this] { io_.run(); });
    http_->start();
    return {};
  }

  // Listeners first, then connections, then the threads. Idempotent.
  void stop() override {
    if (shut_down_) return;
    shut_down_ = true;
    if (thread_.joinable()) {
      std::promise<void> closed;
      asio::post(io_, [&] {
        boost::system::error_code ec;
        acceptor_.close(ec);
        closed.set_value();
      });
      closed.get_future().wait();
      log_->info("TCP: closing {}", tcp_shown_);
    }
    if (http_) {
      http_->stop();
      log_->info("HTTP: closing {}", http_->bound_address());
    }
    {
      std::unique_lock lock(mu_);
      for (auto& [raw, conn] : conns_) {
        if (auto c = conn.lock()) c->close();
      }
      if (thread_.joinable()) {
        cv_.wait_for(lock, std::chrono::seconds(5), [&] { return conns_.empty(); });
      }
    }
    guard_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  asio::awaitable<void> accept_loop() {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket =
          co_await acceptor_.async_accept(io_, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
        log_->error("TCP: accept error - {}", ec.message());
        continue;
      }
      auto conn = std::make_shared<TcpConn>(std::move(socket), db_, identity_, log_,
                                            [this](TcpConn* c) { forget(c); });
      {
        std::lock_guard lock(mu_);
        conns_.emplace(conn.get(), conn);
      }
      conn->start();
    }
  }

  void forget(TcpConn* conn) {
    std::lock_guard lock(mu_);
    conns_.erase(conn);
    cv_.notify_all();
  }

  const Options options_;
  std::shared_ptr<spdlog::logger> log_;
  RegistrationDb db_;
  ServerIdentity identity_;  // written before the first connection
  asio::io_context io_{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  tcp::acceptor acceptor_;
  std::string tcp_shown_;   // the bound address, for logs
  bool shut_down_ = false;  // only touched by the controlling thread
  HttpApi api_;
  std::unique_ptr<http::Server> http_;
  std::thread thread_;

  std::mutex mu_;
  std::condition_variable cv_;                        // conns_ emptied
  std::map<TcpConn*, std::weak_ptr<TcpConn>> conns_;  // guarded by mu_
};

}  // namespace

std::unique_ptr<DaemonServer> make_server(Options options, std::shared_ptr<spdlog::logger> log) {
  return std::make_unique<Server>(std::move(options), std::move(log));
}

}  // namespace nsq::lookupd
