#pragma once

#include <utility>  // before Asio's awaitable header (Boost 1.74)

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "nsq/client/config.h"
#include "nsq/frame.h"
#include "nsq/message.h"

namespace spdlog {
class logger;
}

namespace nsq::client {

// What nsqd answered to IDENTIFY (feature negotiation) and AUTH.
struct ServerSettings {
  int64_t max_rdy_count = 2500;
  int64_t msg_timeout_ms = 60000;
  bool auth_required = false;
};

// One TCP connection to nsqd speaking protocol V2 as a client: connect
// (dial_timeout), magic, IDENTIFY, AUTH when asked, then frames to a
// delegate. Answers heartbeats itself. Reads carry read_timeout, writes
// write_timeout; a missed deadline closes the connection.
//
// Private to the client: Producer and Consumer each own an io_context and
// run every Connection of theirs on it, so the delegate is only ever called
// on that thread.
//
// @par Thread Safety: all members on the io_context's thread only.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  class Delegate {
   public:
    virtual ~Delegate() = default;
    // The handshake is done; commands may be sent.
    virtual void on_ready(Connection& conn) = 0;
    virtual void on_response(Connection& conn, std::string_view data) = 0;
    virtual void on_error_frame(Connection& conn, std::string_view data) = 0;
    virtual void on_message(Connection& conn, const MessageHeader& header, std::string body) = 0;
    // Called once, last; `reason` is empty for a close() we asked for.
    virtual void on_closed(Connection& conn, const std::string& reason) = 0;
  };

  // delegate must outlive the connection's activity (the owner closes its
  // connections and drains the io_context before it goes away).
  Connection(boost::asio::io_context& io, std::string address, const Config& config,
             Delegate* delegate, spdlog::logger& log);
  ~Connection();

  void start();
  // Queues bytes (one or more complete commands) for the writer.
  void send(std::string_view command);
  // Closes at once; pending writes are dropped.
  void close();
  // Closes once everything already sent is written (the last FINs of a
  // consumer that is stopping).
  void close_when_flushed();

  const std::string& address() const { return address_; }
  const ServerSettings& settings() const { return settings_; }
  bool ready() const { return ready_; }
  bool closed() const { return closed_; }

 private:
  boost::asio::awaitable<void> run();
  boost::asio::awaitable<std::string> handshake();
  boost::asio::awaitable<void> write_loop();
  boost::asio::awaitable<void> watchdog();
  // Reads until one frame is complete; errors close and return nullopt.
  boost::asio::awaitable<std::optional<Frame>> read_frame();
  boost::asio::awaitable<bool> write_now(std::string_view bytes);
  // The upgrades nsqd agreed to in its IDENTIFY reply, each followed by its OK.
  boost::asio::awaitable<std::string> upgrade(bool tls, bool deflate, bool snappy);
  boost::asio::awaitable<std::string> expect_ok(std::string_view what);
  // Bytes read past the last frame go through the layer just switched on.
  void refeed_buffered();
  void fail(const std::string& reason);
  void handle_frame(Frame frame);
  void arm_watchdog();

  boost::asio::io_context& io_;
  std::string address_;
  const Config& config_;
  Delegate* delegate_;
  spdlog::logger& log_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer write_signal_;
  boost::asio::steady_timer watchdog_timer_;
  using Clock = std::chrono::steady_clock;
  Clock::time_point read_deadline_ = Clock::time_point::max();
  Clock::time_point write_deadline_ = Clock::time_point::max();
  FrameDecoder decoder_;
  std::string outgoing_;
  std::string writing_;
  ServerSettings settings_;
  // TLS stream and compression codecs once negotiated; defined in the .cc
  // so OpenSSL's headers stay out of the consumer and producer.
  struct Transport;
  std::unique_ptr<Transport> transport_;
  bool ready_ = false;
  bool closed_ = false;
  bool close_reported_ = false;
  bool close_when_flushed_ = false;
};

}  // namespace nsq::client
