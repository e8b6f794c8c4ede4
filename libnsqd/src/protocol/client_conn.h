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
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/auth.h"
#include "core/topic.h"
#include "core/message.h"
#include "net/read_buffer.h"
#include "nsq/identify.h"
#include "nsq/protocol_error.h"

namespace boost::asio::ssl {
class context;
}

namespace nsq::nsqd {

class Broker;
class ConnRegistry;
class ConnStream;
class WorkerPool;

// What a connection needs for TLS and AUTH, shared by all connections and
// owned by the Server (which outlives them).
struct ConnSecurity {
  // The server's TLS context; null when no certificate is configured.
  std::shared_ptr<boost::asio::ssl::context> tls;
  // Threads for the blocking auth server queries; null when AUTH is off.
  WorkerPool* auth_pool = nullptr;
};

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
  ClientConn(boost::asio::ip::tcp::socket socket, Broker& broker, ConnRegistry& registry,
             ConnSecurity security);
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
  // Waits while the output not handed to the socket yet is over its bound:
  // a client that sends commands and never reads their answers stops being
  // read, as Go's blocking write stops it; false when the connection closes.
  boost::asio::awaitable<bool> wait_output_drained();

  // Commands: return false to close the connection.
  boost::asio::awaitable<bool> dispatch(std::string_view name, const Params& params);
  boost::asio::awaitable<bool> cmd_identify(const Params& params);
  // The TLS / snappy / deflate upgrades after the IDENTIFY response, with
  // their OK frames, in the spec's order; false when one failed.
  boost::asio::awaitable<bool> upgrade(std::string identify_response);
  // Writes `bytes` now, while the write loop is paused for an upgrade.
  boost::asio::awaitable<bool> write_now(std::string_view bytes);
  // AUTH enforcement for PUB/MPUB/DPUB (channel "") and SUB; sends the fatal
  // error and returns false when denied. May query the auth server.
  boost::asio::awaitable<bool> check_auth(std::string_view cmd, const std::string& topic,
                                          const std::string& channel);
  // Runs the auth query on a worker thread and resumes here with its result.
  boost::asio::awaitable<tl::expected<auth::State, std::string>> query_auth();
  boost::asio::awaitable<bool> cmd_auth(const Params& params);
  boost::asio::awaitable<bool> cmd_pub(const Params& params);
  boost::asio::awaitable<bool> cmd_mpub(const Params& params);
  boost::asio::awaitable<bool> cmd_dpub(const Params& params);
  boost::asio::awaitable<bool> publish_one_body(std::string_view cmd, const std::string& topic,
                                                std::chrono::milliseconds delay);
  boost::asio::awaitable<bool> publish(std::string_view cmd, const std::string& topic_name,
                                       std::vector<std::string_view> bodies,
                                       std::chrono::milliseconds defer);
  boost::asio::awaitable<bool> cmd_sub(const Params& params);
  bool subscribe(const std::string& topic_name, const std::string& channel_name);
  bool cmd_rdy(const Params& params);
  bool can_ack() const;
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
  // Sends what is queued at once when the socket takes it (plain streams);
  // whether it sent anything.
  bool flush_now();
  void pump();
  void submit_spill(DiskWrites spill);
  void shut_down();
  void leave_channel();

  boost::asio::ip::tcp::socket socket_;
  std::unique_ptr<ConnStream> stream_;  // over socket_: TLS, compression
  const ConnSecurity security_;
  Broker& broker_;
  ConnRegistry& registry_;
  const ClientId id_;
  const std::string remote_;

  ReadBuffer in_;                 // read, not parsed yet
  std::string line_;              // the command line being run (params point into it)
  std::string out_;               // queued for the next write
  std::string writing_;           // in the write in flight
  bool write_in_flight_ = false;
  bool write_paused_ = false;     // an upgrade is writing and switching layers
  // Cancelled whenever the write loop takes out_ or ends a write: wakes an
  // upgrade waiting for the write in flight, and the read loop waiting for
  // its unsent output to drain.
  boost::asio::steady_timer write_progress_;
  bool closing_ = false;          // no more commands; flush and close
  bool closed_ = false;
  bool pump_after_write_ = false;
  bool yield_after_flush_ = false;  // a disk completion resumed this connection
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

  // AUTH: the secret (kept to re-query on expiry) and the grant; read by
  // stats() under stats_mu_.
  std::string auth_secret_;
  std::optional<auth::State> auth_;
  std::string tls_version_, tls_cipher_;  // guarded by stats_mu_
};

}  // namespace nsq::nsqd
