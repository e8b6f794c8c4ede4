#pragma once

// clang-format off
#include <utility>  // before Asio's awaitable header (Boost 1.74)
// clang-format on

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <string>

#include "registration_db.h"
#include "v1_session.h"

namespace spdlog {
class logger;
}

// One nsqlookupd TCP connection: moves bytes between the socket and a
// V1Session. Private to liblookupd (only server.cc and tcp_conn.cc include it).
namespace nsq::lookupd {

// Owned by its own coroutine (shared_from_this); lives on the executor of
// its socket, which close() posts to.
class TcpConn : public std::enable_shared_from_this<TcpConn> {
 public:
  // `db` and `identity` must outlive the connection; `on_done` runs once, on
  // the connection's executor, after it closed.
  TcpConn(boost::asio::ip::tcp::socket socket, RegistrationDb& db, const ServerIdentity& identity,
          std::shared_ptr<spdlog::logger> log, std::function<void(TcpConn*)> on_done);

  void start();
  // Thread-safe: closes the socket on its executor (ends the read loop).
  void close();

 private:
  boost::asio::awaitable<void> run();

  boost::asio::ip::tcp::socket socket_;
  std::shared_ptr<spdlog::logger> log_;
  std::string remote_;
  V1Session session_;
  std::function<void(TcpConn*)> on_done_;
};

}  // namespace nsq::lookupd
