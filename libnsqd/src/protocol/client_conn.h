#pragma once

#include <utility>  // before Asio's awaitable header (Boost 1.74)

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/message.h"
#include "core/topic.h"
#include "net/read_buffer.h"
#include "nsq/protocol_error.h"
#include "protocol/client_state.h"
#include "protocol/v2_client.h"
#include "protocol/v2_session.h"

namespace boost::asio::ssl {
class context;
}

namespace nsq::nsqd {

class Broker;
class ConnRegistry;
class StreamingHint;
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

// One TCP client speaking protocol V2: the socket side. The bytes become
// commands in a V2Session, the commands run in protocol/handlers/, and this
// class moves bytes: it reads, writes, upgrades to TLS/snappy/deflate,
// enforces deadlines and sends heartbeats, and delivers messages.
//
// Lives on one io_context thread for its whole life: every member below is
// touched only from that thread, except wake() and close(), which post to
// it, and stats(), which reads ClientState under its lock.
//
// Three coroutines share the connection: the read loop (parses and runs
// commands in order), the write loop (one write in flight; everything queued
// meanwhile goes out in the next write) and the watchdog (read deadline of
// two heartbeat intervals, write deadline of one, and the heartbeats).
class ClientConn final : public Subscriber,
                         public protocol::V2Client,
                         public std::enable_shared_from_this<ClientConn> {
 public:
  ClientConn(boost::asio::ip::tcp::socket socket, Broker& broker, ConnRegistry& registry,
             ConnSecurity security);
  ~ClientConn() override;

  void start();
  // Thread-safe: ends the connection (flushing what is queued).
  void close();

  // Subscriber
  void wake() override;
  void close_for_delete() override { close(); }
  stats::Client stats() const override { return state_.stats(); }
  bool is_producer() const override { return state_.is_producer(); }

  ClientId id() const noexcept { return state_.id(); }

  // protocol::V2Client
  Broker& broker() override { return broker_; }
  protocol::ClientState& state() override { return state_; }
  boost::asio::any_io_executor executor() override;
  std::weak_ptr<Subscriber> subscriber() override { return weak_from_this(); }
  void respond(std::string_view data) override;
  void flush() override { flush_now(); }
  bool fail(const ProtocolError& error) override;
  void expect_body(protocol::BodyKind kind) override;
  void want_delivery() override { pump_needed_ = true; }
  void finish_later(const MessageId& id) override { pending_fins_.push_back(id); }
  void heartbeat_changed() override;
  void upgrade(std::string response) override { upgrade_ = std::move(response); }
  void resumed_from_disk() override { yield_after_flush_ = true; }
  const std::shared_ptr<boost::asio::ssl::context>& tls_context() const override {
    return security_.tls;
  }
  bool tls() const override;
  std::string tls_common_name() const override;
  WorkerPool* auth_pool() const override { return security_.auth_pool; }

 private:
  boost::asio::awaitable<void> read_loop();
  boost::asio::awaitable<void> write_loop();
  boost::asio::awaitable<void> watchdog();

  // Reading: makes at least n bytes available in the buffer; false when the
  // stream ended or the connection is closing.
  boost::asio::awaitable<bool> fill(std::size_t n);
  // Waits while the output not handed to the socket yet is over its bound:
  // a client that sends commands and never reads their answers stops being
  // read, as Go's blocking write stops it; false when the connection closes.
  boost::asio::awaitable<bool> wait_output_drained();
  // The next command, body included, must arrive within two heartbeat
  // intervals from `now`.
  void extend_read_deadline(std::chrono::steady_clock::time_point now);

  // The TLS / snappy / deflate upgrades after the IDENTIFY response, with
  // their OK frames, in the spec's order; false when one failed.
  boost::asio::awaitable<bool> run_upgrade(std::string identify_response);
  // Writes `bytes` now, while the write loop is paused for an upgrade.
  boost::asio::awaitable<bool> write_now(std::string_view bytes);

  // Finishes the FINs put off (finish_later), reporting their failures.
  void settle_fins();
  void queue_bytes();
  // Sends what is queued at once when the socket takes it (plain streams);
  // whether it sent anything.
  bool flush_now();
  void pump();
  void shut_down();
  void leave_channel();

  boost::asio::ip::tcp::socket socket_;
  std::unique_ptr<ConnStream> stream_;  // over socket_: TLS, compression
  const ConnSecurity security_;
  Broker& broker_;
  ConnRegistry& registry_;
  protocol::ClientState state_;
  protocol::V2Session session_;

  ReadBuffer in_;                       // read, not consumed yet
  bool body_expected_ = false;          // the command read last asked for its body
  std::optional<std::string> upgrade_;  // IDENTIFY's response, before an upgrade
  std::string out_;                     // queued for the next write
  std::string writing_;                 // in the write in flight
  bool write_in_flight_ = false;
  bool write_paused_ = false;  // an upgrade is writing and switching layers
  // Cancelled whenever the write loop takes out_ or ends a write: wakes an
  // upgrade waiting for the write in flight, and the read loop waiting for
  // its unsent output to drain.
  boost::asio::steady_timer write_progress_;
  bool closing_ = false;  // no more commands; flush and close
  bool closed_ = false;
  bool pump_after_write_ = false;
  bool yield_after_flush_ = false;          // a disk completion resumed this connection
  boost::asio::steady_timer write_signal_;  // wakes the write loop
  boost::asio::steady_timer watchdog_timer_;
  std::chrono::steady_clock::time_point read_deadline_;
  // When the read loop last got bytes or its output drained.
  std::chrono::steady_clock::time_point resumed_at_;
  std::chrono::steady_clock::time_point write_started_;
  std::chrono::steady_clock::time_point next_heartbeat_;

  // Commands read since the last wait for bytes: several at once mean the
  // client streams them (a consumer's FINs), which the loop is told.
  static constexpr int kStreamingCommands = 4;
  // FINs read but not finished yet (finish_later): finished together before
  // any other step of the read loop.
  std::vector<MessageId> pending_fins_;
  int commands_read_ = 0;
  StreamingHint& streaming_hint_;

  std::vector<QueuedMessage> batch_;
  std::atomic<bool> wake_pending_{false};
  bool pump_needed_ = false;
};

}  // namespace nsq::nsqd
