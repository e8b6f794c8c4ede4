#include "protocol/client_conn.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "core/broker.h"
#include "net/conn_registry.h"
#include "net/conn_stream.h"
#include "stats/stats_json.h"
#include "nsq/endian.h"
#include "nsq/flags/go_strconv.h"
#include "nsq/frame.h"
#include "nsq/mpub.h"
#include "nsq/names.h"
#include "nsq/parse.h"
#include "protocol/command_line.h"
#include "core/worker_pool.h"

namespace nsq::nsqd {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kMaxPumpBatch = 256;
constexpr std::size_t kMaxKeptWriteBuffer = 1 << 20;
constexpr std::string_view kMagicV2 = "  V2";
constexpr std::chrono::seconds kTlsHandshakeTimeout{5};

std::string endpoint_text(const asio::ip::tcp::socket& s) {
  boost::system::error_code ec;
  auto ep = s.remote_endpoint(ec);
  if (ec) return "unknown";
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

std::chrono::milliseconds ms(std::int64_t v) { return std::chrono::milliseconds(v); }

}  // namespace

ClientConn::ClientConn(asio::ip::tcp::socket socket, Broker& broker, ConnRegistry& registry,
                       ConnSecurity security)
    : socket_(std::move(socket)),
      stream_(std::make_unique<ConnStream>(socket_)),
      security_(std::move(security)),
      broker_(broker),
      registry_(registry),
      id_(broker.next_client_id()),
      remote_(endpoint_text(socket_)),
      write_progress_(socket_.get_executor(), Clock::time_point::max()),
      write_signal_(socket_.get_executor(), Clock::time_point::max()),
      watchdog_timer_(socket_.get_executor()),
      connect_ts_(std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count()) {
  const Options& o = broker.options();
  settings_.heartbeat_interval_ms = 30000;
  settings_.output_buffer_size = 16384;
  settings_.output_buffer_timeout_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.output_buffer_timeout).count();
  settings_.msg_timeout_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(o.msg_timeout).count();
  settings_.client_id = remote_.substr(0, remote_.rfind(':'));
  settings_.hostname = settings_.client_id;
  boost::system::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

ClientConn::~ClientConn() = default;

void ClientConn::start() {
  registry_.add(id_, weak_from_this());
  broker_.log().info("TCP: new client({})", remote_);
  auto now = Clock::now();
  read_deadline_ = now + 2 * ms(settings_.heartbeat_interval_ms);
  next_heartbeat_ = now + ms(settings_.heartbeat_interval_ms);
  auto self = shared_from_this();
  asio::co_spawn(socket_.get_executor(), [self]() { return self->read_loop(); }, asio::detached);
  asio::co_spawn(socket_.get_executor(), [self]() { return self->write_loop(); }, asio::detached);
  asio::co_spawn(socket_.get_executor(), [self]() { return self->watchdog(); }, asio::detached);
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

// ---------------------------------------------------------------------------
// Reading

std::string_view ClientConn::buffered() const noexcept {
  return in_.data();
}

void ClientConn::consume(std::size_t n) noexcept {
  in_.consume(n);
}

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
    std::size_t got =
        co_await stream_->read_some(asio::buffer(space.data(), space.size()), ec);
    if (ec) {
      // A broken compressed or TLS stream is the client's fault: say so.
      if (std::error_code codec = stream_->codec_error()) {
        broker_.log().error("client({}) - failed to read command - {}", remote_, codec.message());
      } else if (ec.category() == asio::error::get_ssl_category()) {
        // (stream_truncated, a close without close_notify, is how most
        // clients hang up: an EOF, not worth an error line.)
        broker_.log().error("client({}) - failed to read command - {}", remote_, ec.message());
      }
      co_return false;
    }
    in_.commit(got, space.size());
  }
  co_return true;
}

awaitable<bool> ClientConn::wait_output_drained() {
  const auto limit = static_cast<std::size_t>(
      std::max(settings_.output_buffer_size, broker_.options().max_output_buffer_size));
  while (out_.size() > limit) {
    if (closing_ || closed_) co_return false;
    boost::system::error_code ignored;
    write_progress_.expires_at(Clock::time_point::max());
    co_await write_progress_.async_wait(asio::redirect_error(use_awaitable, ignored));
  }
  co_return true;
}

awaitable<std::optional<std::int32_t>> ClientConn::read_size() {
  if (!co_await fill(4)) co_return std::nullopt;
  std::int32_t size = get_i32be(in_.data().data());
  consume(4);
  co_return size;
}

awaitable<void> ClientConn::read_loop() {
  if (co_await fill(kMagicV2.size())) {
    if (buffered().substr(0, 4) != kMagicV2) {
      broker_.log().error("client({}) bad protocol magic '{}'", remote_,
                          std::string(buffered().substr(0, 4)));
      fatal("E_BAD_PROTOCOL", "");
    } else {
      consume(4);
      protocol::CommandLine command;
      for (;;) {
        std::string_view data = buffered();
        protocol::LineScan scan = protocol::scan_line(data);
        if (scan.status == protocol::LineStatus::too_long) break;  // NSQ closes silently
        if (scan.status == protocol::LineStatus::need_more) {
          // Everything complete is done: deliver before waiting for more.
          if (pump_needed_) {
            pump_needed_ = false;
            pump();
          }
          if (!co_await fill(data.size() + 1)) break;
          continue;
        }
        // A copy: a command's body read may move the buffer under the views.
        line_.assign(scan.line);
        consume(scan.consumed);
        protocol::split_command(line_, command);
        if (!co_await wait_output_drained()) break;
        if (!co_await dispatch(command.name, command.params)) break;
        // The next command, body included, must arrive within two heartbeat
        // intervals from now, as in Go (which sets its read deadline once
        // per command): a peer trickling bytes cannot hold a buffer forever.
        if (settings_.heartbeat_interval_ms > 0) {
          read_deadline_ = Clock::now() + 2 * ms(settings_.heartbeat_interval_ms);
        }
      }
    }
  }
  shut_down();
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

void ClientConn::send_response(std::string_view data) {
  append_frame(out_, FrameType::response, data);
  queue_bytes();
}

bool ClientConn::send_error(const ProtocolError& error) {
  append_error_frame(out_, error);
  queue_bytes();
  if (error.fatal) {
    broker_.log().error("[{}] {}", remote_, error.render());
    closing_ = true;
  }
  return !error.fatal;
}

bool ClientConn::fatal(std::string_view code, std::string text) {
  return send_error(fatal_error(code, text));
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
    std::int64_t hb = settings_.heartbeat_interval_ms;
    const auto write_timeout =
        hb > 0 ? ms(hb)
               : std::chrono::duration_cast<std::chrono::milliseconds>(
                     broker_.options().max_heartbeat_interval);
    if (hb > 0 && now >= read_deadline_ && !closing_) {
      broker_.log().error("[{}] IO error - read deadline of {}ms passed", remote_, 2 * hb);
      closing_ = true;
      boost::system::error_code ec;
      socket_.close(ec);  // no error frame: the client is gone
      write_signal_.cancel();
      break;
    }
    if (write_in_flight_ && now >= write_started_ + write_timeout) {
      broker_.log().error("[{}] IO error - write deadline of {}ms passed", remote_,
                          write_timeout.count());
      closing_ = true;
      boost::system::error_code ec;
      socket_.close(ec);
      break;
    }
    if (hb > 0 && now >= next_heartbeat_) {
      send_response("_heartbeat_");
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
  broker_.log().info("PROTOCOL(V2): [{}] exiting ioloop", remote_);
  leave_channel();
  registry_.remove(id_);
}

void ClientConn::leave_channel() {
  if (!channel_) return;
  channel_->remove_client(id_);
  std::string topic = channel_->topic_name(), channel = channel_->name();
  {
    std::lock_guard lock(stats_mu_);
    channel_.reset();
    topic_.reset();
  }
  broker_.client_left(topic, channel);
}

stats::Client ClientConn::stats() const {
  stats::Client c;
  {
    std::lock_guard lock(stats_mu_);
    c.client_id = settings_.client_id;
    c.hostname = settings_.hostname;
    c.user_agent = settings_.user_agent;
    c.state = static_cast<int>(state_);
    c.ready_count = rdy_;
    c.sample_rate = settings_.sample_rate;
    c.deflate = settings_.deflate;
    c.snappy = settings_.snappy;
    c.tls = settings_.tls_v1;
    c.tls_version = tls_version_;
    c.tls_cipher_suite = tls_cipher_;
    // Go reports the (deprecated) flag as always true on a TLS connection.
    c.tls_negotiated_protocol_is_mutual = settings_.tls_v1;
    if (auth_ && !auth_->authorizations.empty()) {
      c.authed = true;
      c.auth_identity = auth_->identity;
      c.auth_identity_url = auth_->identity_url;
    }
    for (const auto& [topic, count] : pub_counts_) c.pub_counts.push_back({topic, count});
  }
  c.remote_address = remote_;
  c.connect_ts = connect_ts_;
  c.message_count = message_count_.load(std::memory_order_relaxed);
  c.finish_count = finish_count_.load(std::memory_order_relaxed);
  c.requeue_count = requeue_count_.load(std::memory_order_relaxed);
  return c;
}

// ---------------------------------------------------------------------------
// Delivery

void ClientConn::pump() {
  if (state_ != State::subscribed || !channel_ || closing_ || rdy_ <= 0) return;
  if (write_in_flight_ && out_.size() >= static_cast<std::size_t>(std::max<std::int64_t>(
                                            settings_.output_buffer_size, 16384))) {
    pump_after_write_ = true;  // the socket is behind: wait for it
    return;
  }
  batch_.clear();
  channel_->take(id_, rdy_, kMaxPumpBatch, static_cast<int>(settings_.sample_rate),
                 std::chrono::milliseconds(settings_.msg_timeout_ms), batch_);
  if (batch_.empty()) return;
  for (const QueuedMessage& m : batch_) {
    append_message_frame(out_, MessageHeader{m.msg->timestamp(), m.attempts, m.msg->id()},
                         m.msg->body());
  }
  message_count_.fetch_add(batch_.size(), std::memory_order_relaxed);
  if (batch_.size() == kMaxPumpBatch) pump_after_write_ = true;  // there may be more
  batch_.clear();
  queue_bytes();
}

void ClientConn::submit_spill(DiskWrites spill) {
  if (spill.empty()) return;
  auto writes = std::make_shared<DiskWrites>(std::move(spill));
  Broker* broker = &broker_;
  broker_.disk_pool().submit(
      [writes, broker] { broker->report_disk_result(perform_disk_writes(*writes)); });
}

// ---------------------------------------------------------------------------
// Commands

awaitable<bool> ClientConn::dispatch(std::string_view name, const Params& params) {
  if (name != "IDENTIFY" && broker_.options().tls_required != TlsRequired::no && !stream_->tls()) {
    co_return fatal("E_INVALID", "cannot " + std::string(name) + " in current state (TLS required)");
  }
  if (name == "FIN") co_return cmd_fin(params);
  if (name == "RDY") co_return cmd_rdy(params);
  if (name == "REQ") co_return cmd_req(params);
  if (name == "PUB") co_return co_await cmd_pub(params);
  if (name == "MPUB") co_return co_await cmd_mpub(params);
  if (name == "DPUB") co_return co_await cmd_dpub(params);
  if (name == "NOP") co_return true;
  if (name == "TOUCH") co_return cmd_touch(params);
  if (name == "SUB") co_return co_await cmd_sub(params);
  if (name == "CLS") co_return cmd_cls(params);
  if (name == "IDENTIFY") co_return co_await cmd_identify(params);
  if (name == "AUTH") co_return co_await cmd_auth(params);
  co_return fatal("E_INVALID", "invalid command " + std::string(name));
}

awaitable<bool> ClientConn::cmd_identify(const Params&) {
  if (state_ != State::init) co_return fatal("E_INVALID", "cannot IDENTIFY in current state");
  auto size = co_await read_size();
  if (!size) co_return fatal("E_BAD_BODY", "IDENTIFY failed to read body size");
  const Options& o = broker_.options();
  if (*size > o.max_body_size) {
    co_return fatal("E_BAD_BODY", "IDENTIFY body too big " + std::to_string(*size) + " > " +
                                      std::to_string(o.max_body_size));
  }
  if (*size <= 0) {
    co_return fatal("E_BAD_BODY", "IDENTIFY invalid body size " + std::to_string(*size));
  }
  if (!co_await fill(static_cast<std::size_t>(*size))) {
    co_return fatal("E_BAD_BODY", "IDENTIFY failed to read body");
  }
  std::string body(buffered().substr(0, static_cast<std::size_t>(*size)));
  consume(body.size());

  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  IdentifyLimits limits;
  limits.max_heartbeat_interval_ms = duration_cast<milliseconds>(o.max_heartbeat_interval).count();
  limits.default_output_buffer_timeout_ms =
      duration_cast<milliseconds>(o.output_buffer_timeout).count();
  limits.min_output_buffer_timeout_ms =
      duration_cast<milliseconds>(o.min_output_buffer_timeout).count();
  limits.max_output_buffer_timeout_ms =
      duration_cast<milliseconds>(o.max_output_buffer_timeout).count();
  limits.max_output_buffer_size = o.max_output_buffer_size;
  limits.default_msg_timeout_ms = duration_cast<milliseconds>(o.msg_timeout).count();
  limits.max_msg_timeout_ms = duration_cast<milliseconds>(o.max_msg_timeout).count();
  limits.max_deflate_level = o.max_deflate_level;
  limits.max_rdy_count = o.max_rdy_count;
  limits.deflate_enabled = o.deflate;
  limits.snappy_enabled = o.snappy;
  limits.tls_available = security_.tls != nullptr;
  limits.auth_required = !o.auth_http_addresses.empty();

  auto negotiated = negotiate_identify_json(body, limits);
  if (!negotiated) co_return send_error(negotiated.error());
  {
    std::lock_guard lock(stats_mu_);
    settings_ = std::move(*negotiated);
  }
  auto now = Clock::now();
  if (settings_.heartbeat_interval_ms > 0) {
    read_deadline_ = now + 2 * ms(settings_.heartbeat_interval_ms);
    next_heartbeat_ = now + ms(settings_.heartbeat_interval_ms);
  }
  watchdog_timer_.cancel();  // re-plan with the new interval (or none)
  if (!settings_.feature_negotiation) {
    send_response("OK");
    co_return true;
  }
  std::string response = identify_response_json(settings_, limits);
  if (!settings_.tls_v1 && !settings_.snappy && !settings_.deflate) {
    send_response(response);
    co_return true;
  }
  co_return co_await upgrade(std::move(response));
}

awaitable<bool> ClientConn::write_now(std::string_view bytes) {
  boost::system::error_code ec;
  co_await stream_->write(bytes, ec);
  if (ec) {
    broker_.log().error("[{}] IDENTIFY failed {}", remote_, ec.message());
    closing_ = true;
    co_return false;
  }
  co_return true;
}

// Each layer starts right after the previous OK went out through the layers
// below it (tcp-protocol.md: the JSON in plain text, then TLS and its OK, then
// snappy or deflate and its OK). Bytes already read past IDENTIFY belong to
// the new layer (a client that did not wait), so they are handed to it.
awaitable<bool> ClientConn::upgrade(std::string identify_response) {
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
  if (settings_.tls_v1) {
    std::string early(buffered());
    consume(early.size());
    boost::system::error_code ec;
    co_await stream_->start_tls(*security_.tls, early,
                                std::chrono::duration_cast<std::chrono::milliseconds>(
                                    kTlsHandshakeTimeout),
                                ec);
    if (ec) {
      broker_.log().error("client({}) - IDENTIFY failed TLS handshake - {}", remote_, ec.message());
      closing_ = true;
      resume_writes();
      co_return false;
    }
    {
      std::lock_guard lock(stats_mu_);
      tls_version_ = stream_->tls_version();
      tls_cipher_ = stream_->tls_cipher_suite();
    }
    if (!co_await write_now(ok)) {
      resume_writes();
      co_return false;
    }
  }
  if (settings_.snappy || settings_.deflate) {
    std::string early(buffered());
    consume(early.size());
    std::error_code ec = settings_.snappy ? stream_->start_snappy(early)
                                          : stream_->start_deflate(
                                                static_cast<int>(settings_.deflate_level), early);
    if (ec) {
      broker_.log().error("client({}) - failed to read command - {}", remote_, ec.message());
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

awaitable<bool> ClientConn::cmd_auth(const Params& params) {
  if (state_ != State::init) co_return fatal("E_INVALID", "cannot AUTH in current state");
  if (!params.empty()) co_return fatal("E_INVALID", "AUTH invalid number of parameters");
  auto size = co_await read_size();
  if (!size) co_return fatal("E_BAD_BODY", "AUTH failed to read body size");
  const Options& o = broker_.options();
  if (*size > o.max_body_size) {
    co_return fatal("E_BAD_BODY", "AUTH body too big " + std::to_string(*size) + " > " +
                                      std::to_string(o.max_body_size));
  }
  if (*size <= 0) co_return fatal("E_BAD_BODY", "AUTH invalid body size " + std::to_string(*size));
  if (!co_await fill(static_cast<std::size_t>(*size))) {
    co_return fatal("E_BAD_BODY", "AUTH failed to read body");
  }
  std::string secret(buffered().substr(0, static_cast<std::size_t>(*size)));
  consume(static_cast<std::size_t>(*size));
  if (auth_ && !auth_->authorizations.empty()) co_return fatal("E_INVALID", "AUTH already set");
  if (o.auth_http_addresses.empty()) co_return fatal("E_AUTH_DISABLED", "AUTH disabled");
  auth_secret_ = std::move(secret);
  auto state = co_await query_auth();
  if (!state) {
    // The reason stays in the log: it is not the untrusted client's business.
    broker_.log().warn("PROTOCOL(V2): [{}] AUTH failed {}", remote_, state.error());
    co_return fatal("E_AUTH_FAILED", "AUTH failed");
  }
  {
    std::lock_guard lock(stats_mu_);
    auth_ = std::move(*state);
  }
  if (auth_->authorizations.empty()) {
    co_return fatal("E_UNAUTHORIZED", "AUTH no authorizations found");
  }
  std::string reply = "{\"identity\":";
  json::append_string(reply, auth_->identity);
  reply += ",\"identity_url\":";
  json::append_string(reply, auth_->identity_url);
  reply += ",\"permission_count\":" + std::to_string(auth_->authorizations.size()) + "}";
  send_response(reply);
  co_return true;
}

awaitable<tl::expected<auth::State, std::string>> ClientConn::query_auth() {
  struct Wait {
    explicit Wait(asio::any_io_executor ex) : timer(ex, Clock::time_point::max()) {}
    asio::steady_timer timer;
    bool done = false;
    tl::expected<auth::State, std::string> result = tl::unexpected(std::string());
  };
  const Options& o = broker_.options();
  auto wait = std::make_shared<Wait>(socket_.get_executor());
  std::string query = auth::query_string(auth_secret_, remote_.substr(0, remote_.rfind(':')),
                                         stream_->tls(), stream_->tls_common_name());
  auth::QueryOptions qo;
  qo.connect_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_connect_timeout);
  qo.request_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(o.http_client_request_timeout);
  qo.max_body = static_cast<std::size_t>(o.max_body_size);
  qo.root_ca_file = o.tls_root_ca_file;
  std::size_t start = std::random_device{}() % o.auth_http_addresses.size();
  auto executor = socket_.get_executor();
  spdlog::logger* log = &broker_.log();  // the Broker outlives the auth pool
  std::vector<std::string> addresses = o.auth_http_addresses;
  security_.auth_pool->submit([wait, executor, addresses = std::move(addresses), start,
                              query = std::move(query), qo, log] {
    std::vector<std::string> failures;
    auto result = auth::query_any(addresses, start, query, qo, failures);
    for (const std::string& f : failures) log->error("{}", f);
    asio::post(executor, [wait, result = std::move(result)]() mutable {
      wait->result = std::move(result);
      wait->done = true;
      wait->timer.cancel();
    });
  });
  while (!wait->done) {
    boost::system::error_code ignored;
    co_await wait->timer.async_wait(asio::redirect_error(use_awaitable, ignored));
  }
  co_return std::move(wait->result);
}

// Go's CheckAuth: authorised at all, re-queried when expired, then allowed.
awaitable<bool> ClientConn::check_auth(std::string_view cmd, const std::string& topic,
                                       const std::string& channel) {
  if (broker_.options().auth_http_addresses.empty()) co_return true;
  if (!auth_ || auth_->authorizations.empty()) {
    co_return fatal("E_AUTH_FIRST", "AUTH required before " + std::string(cmd));
  }
  if (auth_->expired(Clock::now())) {
    auto state = co_await query_auth();
    if (!state) {
      broker_.log().warn("PROTOCOL(V2): [{}] AUTH failed {}", remote_, state.error());
      co_return fatal("E_AUTH_FAILED", "AUTH failed");
    }
    std::lock_guard lock(stats_mu_);
    auth_ = std::move(*state);
  }
  if (!auth_->allows(topic, channel)) {
    co_return fatal("E_UNAUTHORIZED", "AUTH failed for " + std::string(cmd) + " on " +
                                          flags::go_quote(topic) + " " + flags::go_quote(channel));
  }
  co_return true;
}

// Reads one message body after its size field, with PUB/DPUB's checks.
awaitable<bool> ClientConn::cmd_pub(const Params& params) {
  if (params.empty()) co_return fatal("E_INVALID", "PUB insufficient number of parameters");
  std::string topic(params[0]);
  if (!is_valid_topic_name(topic)) {
    co_return fatal("E_BAD_TOPIC", "PUB topic name " + flags::go_quote(topic) + " is not valid");
  }
  // (Locals rather than temporaries in the co_await: GCC 12 miscompiles a
  // braced list there.)
  std::string_view cmd = "PUB";
  auto no_delay = std::chrono::milliseconds(0);
  co_return co_await publish_one_body(cmd, topic, no_delay);
}

awaitable<bool> ClientConn::cmd_dpub(const Params& params) {
  if (params.size() < 2) co_return fatal("E_INVALID", "DPUB insufficient number of parameters");
  std::string topic(params[0]);
  if (!is_valid_topic_name(topic)) {
    co_return fatal("E_BAD_TOPIC", "DPUB topic name " + flags::go_quote(topic) + " is not valid");
  }
  auto defer = parse_decimal_digits(params[1]);
  if (!defer) {
    co_return fatal("E_INVALID", "DPUB could not parse timeout " + std::string(params[1]));
  }
  const auto max = broker_.options().max_req_timeout;
  const std::chrono::nanoseconds timeout(go_millis_to_nanos(*defer));
  if (timeout.count() < 0 || timeout > max) {
    co_return fatal("E_INVALID",
                    "DPUB timeout " + std::to_string(*defer) + " out of range 0-" +
                        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(max).count()));
  }
  std::string_view cmd = "DPUB";
  auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  co_return co_await publish_one_body(cmd, topic, delay);
}

// PUB and DPUB after their parameters: the size, the body, then publish.
awaitable<bool> ClientConn::publish_one_body(std::string_view cmd, const std::string& topic,
                                             std::chrono::milliseconds delay) {
  const std::string name(cmd);
  auto size = co_await read_size();
  if (!size) co_return fatal("E_BAD_MESSAGE", name + " failed to read message body size");
  const Options& o = broker_.options();
  if (*size <= 0) {
    co_return fatal("E_BAD_MESSAGE", name + " invalid message body size " + std::to_string(*size));
  }
  if (*size > o.max_msg_size) {
    co_return fatal("E_BAD_MESSAGE", name + " message too big " + std::to_string(*size) + " > " +
                                         std::to_string(o.max_msg_size));
  }
  if (!co_await fill(static_cast<std::size_t>(*size))) {
    co_return fatal("E_BAD_MESSAGE", name + " failed to read message body");
  }
  if (!co_await check_auth(cmd, topic, std::string())) co_return false;
  std::vector<std::string_view> bodies(1, buffered().substr(0, static_cast<std::size_t>(*size)));
  bool ok = co_await publish(cmd, topic, std::move(bodies), delay);
  consume(static_cast<std::size_t>(*size));
  co_return ok;
}

awaitable<bool> ClientConn::cmd_mpub(const Params& params) {
  if (params.empty()) co_return fatal("E_INVALID", "MPUB insufficient number of parameters");
  std::string topic(params[0]);
  if (!is_valid_topic_name(topic)) {
    // v1.3.0 really repeats the code in the text.
    co_return fatal("E_BAD_TOPIC",
                    "E_BAD_TOPIC MPUB topic name " + flags::go_quote(topic) + " is not valid");
  }
  std::string_view auth_cmd = "MPUB";
  if (!co_await check_auth(auth_cmd, topic, std::string())) co_return false;
  // NSQ creates the topic before reading the body.
  if (!broker_.get_or_create_topic(topic)) co_return fatal("E_MPUB_FAILED", "MPUB failed exiting");
  auto size = co_await read_size();
  if (!size) co_return fatal("E_BAD_BODY", "MPUB failed to read body size");
  const Options& o = broker_.options();
  if (*size <= 0) co_return fatal("E_BAD_BODY", "MPUB invalid body size " + std::to_string(*size));
  if (*size > o.max_body_size) {
    co_return fatal("E_BAD_BODY", "MPUB body too big " + std::to_string(*size) + " > " +
                                      std::to_string(o.max_body_size));
  }
  // The messages are read from the stream, not from *size bytes (MpubReader).
  MpubReader reader(MpubLimits{o.max_msg_size, o.max_body_size});
  for (;;) {
    MpubReader::Status status = reader.put(buffered());
    if (status == MpubReader::Status::done) break;
    if (status == MpubReader::Status::failed) co_return send_error(reader.error());
    if (!co_await fill(reader.need())) co_return send_error(reader.truncated());
  }
  std::string_view cmd = "MPUB";
  bool ok = co_await publish(cmd, topic, reader.messages(buffered()), std::chrono::milliseconds(0));
  consume(reader.consumed());
  co_return ok;
}

// Publishes bodies that point into the read buffer: it is not touched until
// this returns, because the read loop waits for it.
awaitable<bool> ClientConn::publish(std::string_view cmd, const std::string& topic_name,
                                    std::vector<std::string_view> bodies,
                                    std::chrono::milliseconds defer) {
  std::string failed = "E_" + std::string(cmd) + "_FAILED";
  auto topic = broker_.get_or_create_topic(topic_name);
  if (!topic) co_return fatal(failed, std::string(cmd) + " failed exiting");
  DiskWrites spill;
  if (std::error_code ec = topic->publish(bodies, defer, spill)) {
    co_return fatal(failed, std::string(cmd) + " failed " + ec.message());
  }
  // The OK waits for the disk. A queue that can take the records at once
  // (a write to the page cache) does it here; the rest goes to the disk pool,
  // and this resumes when it is done.
  const bool to_disk = !spill.empty();
  std::error_code disk_ec = perform_disk_writes_now(spill);
  if (!spill.empty()) {
    struct Wait {
      explicit Wait(asio::any_io_executor ex) : timer(ex, Clock::time_point::max()) {}
      asio::steady_timer timer;
      bool done = false;
      std::error_code ec;
    };
    auto wait = std::make_shared<Wait>(socket_.get_executor());
    // Without holding a disk thread while it waits: with --sync-publish,
    // concurrent publishers share each fsync (DiskQueue::put_batch_async).
    perform_disk_writes_async(std::move(spill), [wait, executor = socket_.get_executor()](
                                                    std::error_code ec) {
      asio::post(executor, [wait, ec] {
        wait->ec = ec;
        wait->done = true;
        wait->timer.cancel();
      });
    });
    while (!wait->done) {
      boost::system::error_code ignored;
      co_await wait->timer.async_wait(asio::redirect_error(use_awaitable, ignored));
    }
    if (!disk_ec) disk_ec = wait->ec;
    yield_after_flush_ = true;
  }
  if (to_disk) {
    broker_.report_disk_result(disk_ec);
    if (disk_ec) co_return fatal(failed, std::string(cmd) + " failed " + disk_ec.message());
  }
  {
    std::lock_guard lock(stats_mu_);
    pub_counts_[topic_name] += bodies.size();
  }
  is_producer_.store(true, std::memory_order_relaxed);
  send_response("OK");
  co_return true;
}

awaitable<bool> ClientConn::cmd_sub(const Params& params) {
  if (state_ != State::init) co_return fatal("E_INVALID", "cannot SUB in current state");
  if (settings_.heartbeat_interval_ms <= 0) {
    co_return fatal("E_INVALID", "cannot SUB with heartbeats disabled");
  }
  if (params.size() < 2) co_return fatal("E_INVALID", "SUB insufficient number of parameters");
  std::string topic_name(params[0]), channel_name(params[1]);
  if (!is_valid_topic_name(topic_name)) {
    co_return fatal("E_BAD_TOPIC",
                    "SUB topic name " + flags::go_quote(topic_name) + " is not valid");
  }
  if (!is_valid_channel_name(channel_name)) {
    co_return fatal("E_BAD_CHANNEL",
                    "SUB channel name " + flags::go_quote(channel_name) + " is not valid");
  }
  std::string_view cmd = "SUB";
  if (!co_await check_auth(cmd, topic_name, channel_name)) co_return false;
  co_return subscribe(topic_name, channel_name);
}

bool ClientConn::subscribe(const std::string& topic_name, const std::string& channel_name) {
  // An ephemeral topic or channel may be going away right now: try twice.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto topic = broker_.get_or_create_topic(topic_name);
    if (!topic) return fatal("E_SUB_FAILED", "SUB failed exiting");
    auto channel = topic->get_or_create_channel(channel_name);
    if (!channel) continue;
    switch (channel->add_client(id_, weak_from_this())) {
      case Channel::AddResult::ok: {
        std::lock_guard lock(stats_mu_);
        topic_ = std::move(topic);
        channel_ = std::move(channel);
        state_ = State::subscribed;
        send_response("OK");
        return true;
      }
      case Channel::AddResult::too_many_consumers:
        return fatal("E_SUB_FAILED", "SUB failed consumers for " + topic_name + ":" +
                                         channel_name + " exceeds limit of " +
                                         std::to_string(broker_.options().max_channel_consumers));
      case Channel::AddResult::exiting:
        continue;
    }
  }
  return fatal("E_SUB_FAILED", "SUB failed to deleted topic/channel");
}

bool ClientConn::cmd_rdy(const Params& params) {
  if (state_ == State::closing) return true;  // ignored, as NSQ does
  if (state_ != State::subscribed) return fatal("E_INVALID", "cannot RDY in current state");
  std::int64_t count = 1;
  if (!params.empty()) {
    auto parsed = parse_decimal_digits(params[0]);
    if (!parsed) return fatal("E_INVALID", "RDY could not parse count " + std::string(params[0]));
    count = static_cast<std::int64_t>(*parsed);  // as Go: 2^64-1 is -1
    if (count < 0 || count > broker_.options().max_rdy_count) {
      return fatal("E_INVALID", "RDY count " + std::to_string(count) + " out of range 0-" +
                                    std::to_string(broker_.options().max_rdy_count));
    }
  }
  {
    std::lock_guard lock(stats_mu_);
    rdy_ = count;
  }
  pump_needed_ = true;
  return true;
}

namespace {

// FIN, REQ and TOUCH share their state, parameter and id checks.
std::optional<MessageId> checked_id(std::string_view cmd, bool state_ok, std::size_t need,
                                    const std::vector<std::string_view>& params,
                                    std::optional<ProtocolError>& error) {
  if (!state_ok) {
    error = fatal_error("E_INVALID", "cannot " + std::string(cmd) + " in current state");
    return std::nullopt;
  }
  if (params.size() < need) {
    error = fatal_error("E_INVALID", std::string(cmd) + " insufficient number of params");
    return std::nullopt;
  }
  auto id = to_message_id(params[0]);
  if (!id) error = fatal_error("E_INVALID", "invalid message ID");
  return id;
}

// E_FIN_FAILED, E_REQ_FAILED, E_TOUCH_FAILED: the channel refused the ack.
ProtocolError ack_failed(std::string_view cmd, std::string_view id, Channel::AckResult r) {
  std::string_view reason =
      r == Channel::AckResult::not_owner ? "client does not own message" : "ID not in flight";
  std::string c(cmd);
  return ProtocolError{"E_" + c + "_FAILED",
                       c + " " + std::string(id) + " failed " + std::string(reason), false};
}

}  // namespace

// FIN, REQ and TOUCH: subscribed, or closing and draining what is in flight.
bool ClientConn::can_ack() const {
  return (state_ == State::subscribed || state_ == State::closing) && channel_;
}

bool ClientConn::cmd_fin(const Params& params) {
  std::optional<ProtocolError> error;
  bool state_ok = can_ack();
  auto id = checked_id("FIN", state_ok, 1, params, error);
  if (!id) return send_error(*error);
  auto r = channel_->finish(id_, *id);
  if (r != Channel::AckResult::ok) {
    return send_error(ack_failed("FIN", params[0], r));
  }
  finish_count_.fetch_add(1, std::memory_order_relaxed);
  pump_needed_ = true;
  return true;
}

bool ClientConn::cmd_req(const Params& params) {
  std::optional<ProtocolError> error;
  bool state_ok = can_ack();
  auto id = checked_id("REQ", state_ok, 2, params, error);
  if (!id) return send_error(*error);
  auto timeout = parse_decimal_digits(params[1]);
  if (!timeout) {
    return fatal("E_INVALID", "REQ could not parse timeout " + std::string(params[1]));
  }
  // Clamped into 0..--max-req-timeout, after Go's wrapping conversion (so
  // 2^64-1 ms, -1 ms to Go, requeues at once).
  const std::chrono::nanoseconds wanted(go_millis_to_nanos(*timeout));
  const auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::clamp<std::chrono::nanoseconds>(wanted, std::chrono::nanoseconds(0),
                                           broker_.options().max_req_timeout));
  DiskWrites spill;
  auto r = channel_->requeue(id_, *id, delay, spill);
  submit_spill(std::move(spill));
  if (r != Channel::AckResult::ok) {
    return send_error(ack_failed("REQ", params[0], r));
  }
  requeue_count_.fetch_add(1, std::memory_order_relaxed);
  pump_needed_ = true;
  return true;
}

bool ClientConn::cmd_touch(const Params& params) {
  std::optional<ProtocolError> error;
  bool state_ok = can_ack();
  auto id = checked_id("TOUCH", state_ok, 1, params, error);
  if (!id) return send_error(*error);
  auto r = channel_->touch(id_, *id, std::chrono::milliseconds(settings_.msg_timeout_ms));
  if (r != Channel::AckResult::ok) {
    return send_error(ack_failed("TOUCH", params[0], r));
  }
  return true;
}

bool ClientConn::cmd_cls(const Params&) {
  if (state_ != State::subscribed) return fatal("E_INVALID", "cannot CLS in current state");
  {
    std::lock_guard lock(stats_mu_);
    rdy_ = 0;
    state_ = State::closing;
  }
  send_response("CLOSE_WAIT");
  return true;
}

}  // namespace nsq::nsqd
