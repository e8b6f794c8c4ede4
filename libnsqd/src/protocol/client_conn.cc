#include "protocol/client_conn.h"

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstring>

#include "core/broker.h"
#include "net/conn_registry.h"
#include "net/conn_stream.h"
#include "net/streaming_hint.h"
#include "nsq/endian.h"
#include "nsq/frame.h"
#include "protocol/dispatch.h"
#include "protocol/handlers/handlers.h"

namespace nsq::nsqd {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kMaxPumpBatch = 256;
constexpr std::size_t kMaxKeptWriteBuffer = 1 << 20;
constexpr std::chrono::seconds kTlsHandshakeTimeout{5};

std::string endpoint_text(const asio::ip::tcp::socket& s) {
  boost::system::error_code ec;
  auto ep = s.remote_endpoint(ec);
  if (ec) return "unknown";
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

std::chrono::milliseconds ms(std::int64_t v) { return std::chrono::milliseconds(v); }

// What a client has before (or without) IDENTIFY.
NegotiatedIdentify default_settings(const Options& o, const std::string& remote) {
  NegotiatedIdentify s;
  s.heartbeat_interval_ms = 30000;
  s.output_buffer_size = 16384;
  s.output_buffer_timeout_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.output_buffer_timeout).count();
  s.msg_timeout_ms = std::chrono::duration_cast<std::chrono::milliseconds>(o.msg_timeout).count();
  s.client_id = remote.substr(0, remote.rfind(':'));
  s.hostname = s.client_id;
  return s;
}

protocol::SessionLimits session_limits(const Options& o) {
  return protocol::SessionLimits{o.max_body_size, o.max_msg_size};
}

}  // namespace

ClientConn::ClientConn(asio::ip::tcp::socket socket, Broker& broker, ConnRegistry& registry,
                       ConnSecurity security)
    : socket_(std::move(socket)),
      stream_(std::make_unique<ConnStream>(socket_)),
      security_(std::move(security)),
      broker_(broker),
      registry_(registry),
      state_(broker.next_client_id(), endpoint_text(socket_),
             default_settings(broker.options(), endpoint_text(socket_))),
      session_(session_limits(broker.options())),
      write_progress_(socket_.get_executor(), Clock::time_point::max()),
      write_signal_(socket_.get_executor(), Clock::time_point::max()),
      watchdog_timer_(socket_.get_executor()),
      streaming_hint_(asio::use_service<StreamingHint>(
          asio::query(socket_.get_executor(), asio::execution::context))) {
  boost::system::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

ClientConn::~ClientConn() = default;

void ClientConn::start() {
  registry_.add(id(), weak_from_this());
  broker_.log().info("TCP: new client({})", state_.remote());
  auto now = Clock::now();
  const std::int64_t hb = state_.settings().heartbeat_interval_ms;
  read_deadline_ = now + 2 * ms(hb);
  next_heartbeat_ = now + ms(hb);
  auto self = shared_from_this();
  asio::co_spawn(
      socket_.get_executor(), [self]() { return self->read_loop(); }, asio::detached);
  asio::co_spawn(
      socket_.get_executor(), [self]() { return self->write_loop(); }, asio::detached);
  asio::co_spawn(
      socket_.get_executor(), [self]() { return self->watchdog(); }, asio::detached);
}

void ClientConn::close() {
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    if (self->closing_) return;
    self->closing_ = true;
    boost::system::error_code ec;
    self->socket_.shutdown(asio::ip::tcp::socket::shutdown_receive, ec);
    self->write_signal_.cancel();
  });
}

void ClientConn::wake() {
  if (wake_pending_.exchange(true)) return;
  asio::post(socket_.get_executor(), [self = shared_from_this()] {
    self->wake_pending_ = false;
    self->pump();
  });
}

asio::any_io_executor ClientConn::executor() { return socket_.get_executor(); }

bool ClientConn::tls() const { return stream_->tls(); }

std::string ClientConn::tls_common_name() const { return stream_->tls_common_name(); }

// ---------------------------------------------------------------------------
// Reading

awaitable<bool> ClientConn::fill(std::size_t n) {
  while (in_.size() < n) {
    if (closing_) co_return false;
    if (flush_now() && yield_after_flush_) {
      // Let the other connections woken with this one send their answers
      // first: by the time this one reads, its client has likely sent the
      // next command, so the read finds it instead of coming back empty.
      yield_after_flush_ = false;
      co_await asio::post(socket_.get_executor(), use_awaitable);
    }
    std::span<char> space = in_.prepare(n);
    boost::system::error_code ec;
    std::size_t got = co_await stream_->read_some(asio::buffer(space.data(), space.size()), ec);
    if (ec) {
      // A broken compressed or TLS stream is the client's fault: say so.
      if (std::error_code codec = stream_->codec_error()) {
        broker_.log().error("client({}) - failed to read command - {}", state_.remote(),
                            codec.message());
      } else if (ec.category() == asio::error::get_ssl_category()) {
        // (stream_truncated, a close without close_notify, is how most
        // clients hang up: an EOF, not worth an error line.)
        broker_.log().error("client({}) - failed to read command - {}", state_.remote(),
                            ec.message());
      }
      co_return false;
    }
    in_.commit(got, space.size());
    resumed_at_ = Clock::now();
  }
  co_return true;
}

awaitable<bool> ClientConn::wait_output_drained() {
  const auto limit = static_cast<std::size_t>(
      std::max(state_.settings().output_buffer_size, broker_.options().max_output_buffer_size));
  while (out_.size() > limit) {
    if (closing_ || closed_) co_return false;
    boost::system::error_code ignored;
    write_progress_.expires_at(Clock::time_point::max());
    co_await write_progress_.async_wait(asio::redirect_error(use_awaitable, ignored));
    resumed_at_ = Clock::now();
  }
  co_return true;
}

awaitable<void> ClientConn::read_loop() {
  using protocol::Step;
  bool ended = false;
  for (;;) {
    Step step = session_.next(in_.data(), ended);
    if (!(step.kind == Step::Kind::command && step.command->name == "FIN")) settle_fins();
    if (step.kind == Step::Kind::need_more) {
      // Everything complete is done: deliver before waiting for more.
      if (pump_needed_) {
        pump_needed_ = false;
        pump();
      }
      if (commands_read_ >= kStreamingCommands) streaming_hint_.streamed();
      commands_read_ = 0;
      if (!co_await fill(step.need)) ended = true;
      continue;
    }
    if (step.kind == Step::Kind::close) break;
    if (step.kind == Step::Kind::error) {
      if (!session_.bad_magic().empty()) {
        broker_.log().error("client({}) bad protocol magic '{}'", state_.remote(),
                            std::string(session_.bad_magic()));
      }
      fail(step.error);
      break;
    }
    ++commands_read_;
    bool open = true;
    // Whether the command ran at once: most (FIN, RDY, REQ, TOUCH) do, and
    // their read deadline counts from when the loop last resumed (bytes
    // read, output drained) rather than from a clock read per command
    // (3.6% of the delivery path's CPU).
    bool at_once = false;
    if (step.kind == Step::Kind::command) {
      in_.consume(step.consumed);
      if (!co_await wait_output_drained()) break;
      body_expected_ = false;
      std::optional<bool> now = protocol::run_now(*this, *step.command);
      at_once = now.has_value();
      open = now ? *now : co_await protocol::run(*this, *step.command);
    } else {
      body_expected_ = false;
      open = co_await protocol::run_body(*this, *step.command, step);
      in_.consume(step.consumed);  // the body was read from the buffer until here
    }
    if (!open) break;
    const bool upgraded = upgrade_.has_value();
    if (upgrade_) {
      std::string response = std::move(*upgrade_);
      upgrade_.reset();
      if (!co_await run_upgrade(std::move(response))) break;
    }
    if (!body_expected_) extend_read_deadline(at_once && !upgraded ? resumed_at_ : Clock::now());
  }
  settle_fins();
  shut_down();
}

// As Go, which sets its read deadline once per command: a peer trickling
// bytes cannot hold a buffer forever.
void ClientConn::extend_read_deadline(Clock::time_point now) {
  const std::int64_t hb = state_.settings().heartbeat_interval_ms;
  if (hb > 0) read_deadline_ = now + 2 * ms(hb);
}

void ClientConn::expect_body(protocol::BodyKind kind) {
  session_.expect_body(kind);
  body_expected_ = true;
}

void ClientConn::heartbeat_changed() {
  const std::int64_t hb = state_.settings().heartbeat_interval_ms;
  if (hb > 0) {
    auto now = Clock::now();
    read_deadline_ = now + 2 * ms(hb);
    next_heartbeat_ = now + ms(hb);
  }
  watchdog_timer_.cancel();  // re-plan with the new interval (or none)
}

// ---------------------------------------------------------------------------
// Writing

void ClientConn::queue_bytes() { write_signal_.cancel_one(); }

// Called before the read loop reads: what its commands queued (their
// responses, the messages a FIN or RDY let through) leaves in one send from
// here, without waiting for the write loop's turn. A request/response client
// (a publisher waiting for each OK) gets its answer a thread hop sooner. The
// write loop, already signalled, finds nothing left, or sends the rest when
// the socket took only part.
bool ClientConn::flush_now() {
  if (out_.empty() || write_in_flight_ || write_paused_) return false;
  const std::size_t n = stream_->write_some_now(out_);
  out_.erase(0, n);
  return n > 0;
}

void ClientConn::settle_fins() {
  if (pending_fins_.empty()) return;
  // Taken out first: a failed FIN's error frame comes back through fail().
  std::vector<MessageId> fins;
  fins.swap(pending_fins_);
  protocol::handlers::finish_pending(*this, fins);
  fins.clear();
  if (pending_fins_.empty()) pending_fins_.swap(fins);  // its memory, for the next ones
}

void ClientConn::respond(std::string_view data) {
  settle_fins();  // a frame after them, as the client sent them
  append_frame(out_, FrameType::response, data);
  queue_bytes();
}

bool ClientConn::fail(const ProtocolError& error) {
  settle_fins();
  append_error_frame(out_, error);
  queue_bytes();
  if (error.fatal) {
    broker_.log().error("[{}] {}", state_.remote(), error.render());
    closing_ = true;
  }
  return !error.fatal;
}

awaitable<void> ClientConn::write_loop() {
  for (;;) {
    if (out_.empty() || write_paused_) {
      if (closing_ && out_.empty() && !write_paused_) break;
      boost::system::error_code ec;
      write_signal_.expires_at(Clock::time_point::max());
      co_await write_signal_.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    writing_.swap(out_);
    out_.clear();
    write_in_flight_ = true;
    write_started_ = Clock::now();
    write_progress_.cancel();
    boost::system::error_code ec;
    co_await stream_->write(writing_, ec);
    write_in_flight_ = false;
    // A big write's buffer is not kept for the life of the connection.
    if (writing_.capacity() > kMaxKeptWriteBuffer) {
      std::string().swap(writing_);
    } else {
      writing_.clear();
    }
    write_progress_.cancel();
    if (ec) {
      closing_ = true;
      break;
    }
    if (pump_after_write_) {
      pump_after_write_ = false;
      pump();
    }
  }
  closed_ = true;
  write_progress_.cancel();
  boost::system::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  watchdog_timer_.cancel();
}

// Read and write deadlines and heartbeats, on one timer. A write must end
// within a heartbeat interval, as in Go; with heartbeats off (where Go would
// block for ever) within --max-heartbeat-interval, so that a client that
// never reads is closed rather than kept.
awaitable<void> ClientConn::watchdog() {
  while (!closed_) {
    auto now = Clock::now();
    std::int64_t hb = state_.settings().heartbeat_interval_ms;
    const auto write_timeout = hb > 0 ? ms(hb)
                                      : std::chrono::duration_cast<std::chrono::milliseconds>(
                                            broker_.options().max_heartbeat_interval);
    if (hb > 0 && now >= read_deadline_ && !closing_) {
      broker_.log().error("[{}] IO error - read deadline of {}ms passed", state_.remote(), 2 * hb);
      closing_ = true;
      boost::system::error_code ec;
      socket_.close(ec);  // no error frame: the client is gone
      write_signal_.cancel();
      break;
    }
    if (write_in_flight_ && now >= write_started_ + write_timeout) {
      broker_.log().error("[{}] IO error - write deadline of {}ms passed", state_.remote(),
                          write_timeout.count());
      closing_ = true;
      boost::system::error_code ec;
      socket_.close(ec);
      break;
    }
    if (hb > 0 && now >= next_heartbeat_) {
      respond("_heartbeat_");
      next_heartbeat_ = now + ms(hb);
    }
    // With heartbeats the next one wakes it anyway (an idle connection costs
    // no other wake-up); without, it looks every second for a blocked write.
    auto wake = write_in_flight_ ? write_started_ + write_timeout
                : hb > 0         ? Clock::time_point::max()
                                 : Clock::now() + std::chrono::seconds(1);
    if (hb > 0) wake = std::min({wake, read_deadline_, next_heartbeat_});
    wake = std::max(wake, Clock::now() + std::chrono::milliseconds(1));
    watchdog_timer_.expires_at(wake);
    boost::system::error_code ec;
    co_await watchdog_timer_.async_wait(asio::redirect_error(use_awaitable, ec));
  }
}

void ClientConn::shut_down() {
  closing_ = true;
  write_signal_.cancel();
  // Logged before the client leaves its channel, as Go does: once /stats no
  // longer lists the client, its exit line is written.
  broker_.log().info("PROTOCOL(V2): [{}] exiting ioloop", state_.remote());
  leave_channel();
  registry_.remove(id());
}

void ClientConn::leave_channel() {
  std::shared_ptr<Channel> channel = state_.unsubscribe();
  if (!channel) return;
  channel->remove_client(id());
  broker_.client_left(channel->topic_name(), channel->name());
}

// ---------------------------------------------------------------------------
// Delivery

void ClientConn::pump() {
  const std::shared_ptr<Channel>& channel = state_.channel();
  if (state_.phase() != protocol::Phase::subscribed || !channel || closing_) return;
  const NegotiatedIdentify& settings = state_.settings();
  if (write_in_flight_ && out_.size() >= static_cast<std::size_t>(std::max<std::int64_t>(
                                             settings.output_buffer_size, 16384))) {
    pump_after_write_ = true;  // the socket is behind: wait for it
    return;
  }
  batch_.clear();
  channel->take(id(), state_.rdy(), kMaxPumpBatch, static_cast<int>(settings.sample_rate),
                std::chrono::milliseconds(settings.msg_timeout_ms), batch_);
  if (batch_.empty()) return;
  for (const QueuedMessage& m : batch_) {
    append_message_frame(out_, MessageHeader{m.msg->timestamp(), m.attempts, m.msg->id()},
                         m.msg->body());
  }
  state_.count_delivered(batch_.size());
  if (batch_.size() == kMaxPumpBatch) pump_after_write_ = true;  // there may be more
  batch_.clear();
  queue_bytes();
}

// ---------------------------------------------------------------------------
// Upgrades

awaitable<bool> ClientConn::write_now(std::string_view bytes) {
  boost::system::error_code ec;
  co_await stream_->write(bytes, ec);
  if (ec) {
    broker_.log().error("[{}] IDENTIFY failed {}", state_.remote(), ec.message());
    closing_ = true;
    co_return false;
  }
  co_return true;
}

// Each layer starts right after the previous OK went out through the layers
// below it (tcp-protocol.md: the JSON in plain text, then TLS and its OK, then
// snappy or deflate and its OK). Bytes already read past IDENTIFY belong to
// the new layer (a client that did not wait), so they are handed to it.
awaitable<bool> ClientConn::run_upgrade(std::string identify_response) {
  write_paused_ = true;
  while (write_in_flight_) {
    boost::system::error_code ignored;
    write_progress_.expires_at(Clock::time_point::max());
    co_await write_progress_.async_wait(asio::redirect_error(use_awaitable, ignored));
  }
  auto resume_writes = [this] {
    write_paused_ = false;
    write_signal_.cancel();
  };
  std::string frame = std::move(out_);  // heartbeats queued before, then the JSON
  out_.clear();
  append_frame(frame, FrameType::response, identify_response);
  if (!co_await write_now(frame)) {
    resume_writes();
    co_return false;
  }
  std::string ok;
  append_frame(ok, FrameType::response, "OK");
  const NegotiatedIdentify& settings = state_.settings();
  if (settings.tls_v1) {
    std::string early(in_.data());
    in_.consume(early.size());
    boost::system::error_code ec;
    co_await stream_->start_tls(
        *security_.tls, early,
        std::chrono::duration_cast<std::chrono::milliseconds>(kTlsHandshakeTimeout), ec);
    if (ec) {
      broker_.log().error("client({}) - IDENTIFY failed TLS handshake - {}", state_.remote(),
                          ec.message());
      closing_ = true;
      resume_writes();
      co_return false;
    }
    state_.set_tls(stream_->tls_version(), stream_->tls_cipher_suite());
    if (!co_await write_now(ok)) {
      resume_writes();
      co_return false;
    }
  }
  if (settings.snappy || settings.deflate) {
    std::string early(in_.data());
    in_.consume(early.size());
    std::error_code ec =
        settings.snappy ? stream_->start_snappy(early)
                        : stream_->start_deflate(static_cast<int>(settings.deflate_level), early);
    if (ec) {
      broker_.log().error("client({}) - failed to read command - {}", state_.remote(),
                          ec.message());
      closing_ = true;
      resume_writes();
      co_return false;
    }
    if (!co_await write_now(ok)) {
      resume_writes();
      co_return false;
    }
  }
  resume_writes();
  co_return true;
}

}  // namespace nsq::nsqd
