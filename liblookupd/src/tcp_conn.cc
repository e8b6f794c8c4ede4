#include "tcp_conn.h"

#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include "nsq/go_logger.h"
#include "nsq/listen_address.h"

namespace nsq::lookupd {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

std::string endpoint_text(const tcp::socket& socket) {
  boost::system::error_code ec;
  auto ep = socket.remote_endpoint(ec);
  return ec ? "unknown" : endpoint_string(ep);
}

}  // namespace

TcpConn::TcpConn(tcp::socket socket, RegistrationDb& db, const ServerIdentity& identity,
                 std::shared_ptr<spdlog::logger> log, std::function<void(TcpConn*)> on_done)
    : socket_(std::move(socket)),
      log_(std::move(log)),
      remote_(endpoint_text(socket_)),
      session_(
          db, identity, remote_,
          [log = log_](LogLevel level, const std::string& text) { log_at(*log, level, text); }),
      on_done_(std::move(on_done)) {}

void TcpConn::start() {
  asio::co_spawn(
      socket_.get_executor(), [self = shared_from_this()]() { return self->run(); },
      asio::detached);
}

void TcpConn::close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ec;
    self->socket_.shutdown(tcp::socket::shutdown_both, ec);
    self->socket_.close(ec);
  });
}

asio::awaitable<void> TcpConn::run() {
  log_->info("TCP: new client({})", remote_);
  boost::system::error_code ec;
  socket_.set_option(tcp::no_delay(true), ec);
  std::array<char, 16 * 1024> buf;
  std::string out;
  for (;;) {
    std::size_t n = co_await socket_.async_read_some(asio::buffer(buf),
                                                     asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::eof) session_.on_eof(out);
      if (!out.empty() && socket_.is_open()) {
        boost::system::error_code wec;
        co_await asio::async_write(socket_, asio::buffer(out),
                                   asio::redirect_error(asio::use_awaitable, wec));
      }
      break;
    }
    session_.put(std::string_view(buf.data(), n), std::chrono::system_clock::now(), out);
    if (!out.empty()) {
      co_await asio::async_write(socket_, asio::buffer(out),
                                 asio::redirect_error(asio::use_awaitable, ec));
      out.clear();
      if (ec) break;
    }
    if (session_.closed()) break;
  }
  if (session_.accepted_magic()) log_->info("PROTOCOL(V1): [{}] exiting ioloop", remote_);
  session_.on_close();
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  if (on_done_) on_done_(this);
}

}  // namespace nsq::lookupd
