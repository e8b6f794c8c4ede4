#pragma once

#include <utility>  // before Asio's awaitable header (Boost 1.74)

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topic.h"
#include "message.h"
#include "nsq/identify.h"
#include "nsq/protocol_error.h"

namespace nsq::nsqd {

class Broker;
class ConnRegistry;

// One TCP client speaking protocol V2. Lives on one io_context thread for its
// whole life: every member below is touched only from that thread, except
// wake() and close(), which post to it.
//
// Three coroutines share the connection: the read loop (parses and runs
// commands in order), the write loop (one write in flight; everything queued
// meanwhile goes out in the next write) and the watchdog (read deadline of
// two heartbeat intervals, write deadline of one, and the heartbeats).
class ClientConn : public Subscriber, public std::enable_shared_from_this<ClientConn> {
 public:
  ClientConn(boost::asio::ip::tcp::socket socket, Broker& broker, ConnRegistry& registry);
  ~ClientConn() override;

  void start();
  // Thread-safe: ends the connection (flushing what is queued).
  void close();

  void wake() override;
  void close_for_delete() override { close(); }
  stats::Client stats() const override;
  bool is_producer() const override { return is_producer_.load(std::memory_order_relaxed); }

  ClientId id() const noexcept { return id_; }

 private:
  enum class State { init = 0, subscribed = 3, closing = 4 };
  using Params = std::vector<std::string_view>;

  boost::asio::awaitable<void> read_loop();
  boost::asio::awaitable<void> write_loop();
  boost::asio::awaitable<void> watchdog();

  // Reading: makes at least n bytes available in the buffer.
  boost::asio::awaitable<bool> fill(std::size_t n);
  std::string_view buffered() const noexcept;
  void consume(std::size_t n) noexcept;
  // Reads the 4-byte body size of a command; nullopt when the stream ended.
  boost::asio::awaitable<std::optional<std::int32_t>> read_size();

  // Commands: return false to close the connection.
  boost::asio::awaitable<bool> dispatch(std::string_view name, const Params& params);
  boost::asio::awaitable<bool> cmd_identify(const Params& params);
  boost::asio::awaitable<bool> cmd_auth(const Params& params);
  boost::asio::awaitable<bool> cmd_pub(const Params& params);
  boost::asio::awaitable<bool> cmd_mpub(const Params& params);
  boost::asio::awaitable<bool> cmd_dpub(const Params& params);
  boost::asio::awaitable<bool> publish(std::string_view cmd, const std::string& topic_name,
                                       std::vector<std::string_view> bodies,
                                       std::chrono::milliseconds defer);
  bool cmd_sub(const Params& params);
  bool cmd_rdy(const Params& params);
  bool cmd_fin(const Params& params);
  bool cmd_req(const Params& params);
  bool cmd_touch(const Params& params);
  bool cmd_cls(const Params& params);

  // Responses and errors are written at once; message frames are batched by pump().
  void send_response(std::string_view data);
  // Sends the error; returns whether the connection stays open.
  bool send_error(const ProtocolError& error);
  bool fatal(std::string_view code, std::string text);
  void queue_bytes();
  void pump();
  void submit_spill(DiskWrites spill);
  void shut_down();
  void leave_channel();

  boost::asio::ip::tcp::socket socket_;
  Broker& broker_;
  ConnRegistry& registry_;
  const ClientId id_;
  const std::string remote_;

  std::vector<char> in_;          // read buffer: [in_start_, in_end_) unread
  std::size_t in_start_ = 0, in_end_ = 0;
  std::string line_;              // the command line being run (params point into it)
  std::string out_;               // queued for the next write
  std::string writing_;           // in the write in flight
  bool write_in_flight_ = false;
  bool closing_ = false;          // no more commands; flush and close
  bool closed_ = false;
  bool pump_after_write_ = false;
  boost::asio::steady_timer write_signal_;  // wakes the write loop
  boost::asio::steady_timer watchdog_timer_;
  std::chrono::steady_clock::time_point read_deadline_;
  std::chrono::steady_clock::time_point write_started_;
  std::chrono::steady_clock::time_point next_heartbeat_;

  State state_ = State::init;
  NegotiatedIdentify settings_;
  std::int64_t rdy_ = 0;
  std::shared_ptr<Topic> topic_;
  std::shared_ptr<Channel> channel_;
  std::vector<QueuedMessage> batch_;
  std::atomic<bool> wake_pending_{false};
  bool pump_needed_ = false;

  // What /stats reads from other threads: counters are atomics; the rest is
  // written by this connection's thread under stats_mu_ (and read by it
  // without the lock, as the only writer).
  mutable std::mutex stats_mu_;
  std::map<std::string, std::uint64_t> pub_counts_;  // guarded by stats_mu_
  const std::int64_t connect_ts_;
  std::atomic<std::uint64_t> message_count_{0};
  std::atomic<std::uint64_t> finish_count_{0};
  std::atomic<std::uint64_t> requeue_count_{0};
  std::atomic<bool> is_producer_{false};
};

}  // namespace nsq::nsqd
