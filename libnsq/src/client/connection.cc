#include "connection.h"

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <string_view>
#include <type_traits>

#include "identify_reply.h"
#include "nsq/codec/deflate_stream.h"
#include "nsq/codec/snappy_stream.h"
#include "nsq/endian.h"
#include "nsq/json/writer.h"

namespace nsq::client {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

namespace {

constexpr std::string_view kMagicV2 = "  V2";

int64_t to_ms(Config::Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

// The IDENTIFY body go-nsq sends (spec/tools.md §7), written as Go's
// json.Marshal writes it.
std::string identify_body(const Config& c) {
  std::string out = "{";
  const auto field = [&out](std::string_view key, auto value) {
    if (out.size() > 1) out += ',';
    json::append_key(out, key);
    if constexpr (std::is_same_v<decltype(value), bool>) {
      json::append_bool(out, value);
    } else if constexpr (std::is_integral_v<decltype(value)>) {
      json::append_int(out, value);
    } else {
      json::append_string(out, value);
    }
  };
  const auto ms_or_disabled = [](Config::Duration d) {
    return d < Config::Duration::zero() ? int64_t{-1} : to_ms(d);
  };
  field("client_id", std::string_view(c.client_id));
  field("hostname", std::string_view(c.hostname));
  field("user_agent", std::string_view(c.user_agent));
  field("short_id", std::string_view(c.client_id));
  field("long_id", std::string_view(c.hostname));
  field("tls_v1", c.tls_v1);
  field("deflate", c.deflate);
  field("deflate_level", c.deflate_level);
  field("snappy", c.snappy);
  field("feature_negotiation", true);
  field("heartbeat_interval", ms_or_disabled(c.heartbeat_interval));
  field("sample_rate", c.sample_rate);
  field("output_buffer_size", c.output_buffer_size);
  field("output_buffer_timeout", ms_or_disabled(c.output_buffer_timeout));
  field("msg_timeout", to_ms(c.msg_timeout));
  return out + "}";
}

std::string command_with_body(std::string_view line, std::string_view body) {
  std::string out;
  out.reserve(line.size() + 5 + body.size());
  out.append(line);
  out.push_back('\n');
  append_u32be(out, static_cast<uint32_t>(body.size()));
  out.append(body);
  return out;
}

// host:port split at the last colon; IPv6 literals may be bracketed.
bool split_host_port(const std::string& address, std::string& host, std::string& port) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  host = address.substr(0, colon);
  port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return true;
}

// go-nsq caps its TLS at 1.2 whenever any TLS option is set.
int tls_min_version(const std::string& name) {
  if (name == "ssl3.0") return SSL3_VERSION;
  if (name == "tls1.0") return TLS1_VERSION;
  if (name == "tls1.1") return TLS1_1_VERSION;
  if (name == "tls1.3") return TLS1_3_VERSION;
  return TLS1_2_VERSION;
}

bool is_ip_literal(const std::string& host) {
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

}  // namespace

struct Connection::Transport {
  std::unique_ptr<asio::ssl::context> tls_context;
  std::unique_ptr<asio::ssl::stream<asio::ip::tcp::socket&>> tls;
  std::unique_ptr<codec::SnappyStreamEncoder> snappy_out;
  std::unique_ptr<codec::SnappyStreamDecoder> snappy_in;
  std::unique_ptr<codec::DeflateStreamEncoder> deflate_out;
  std::unique_ptr<codec::DeflateStreamDecoder> deflate_in;
  std::string scratch;

  // Plain bytes of what was read (through the decompressor, if any).
  std::error_code decode(std::string_view raw, std::string& plain) {
    if (snappy_in) return snappy_in->put(raw, plain);
    if (deflate_in) return deflate_in->put(raw, plain);
    plain.append(raw);
    return {};
  }
  // Wire bytes for plain ones.
  std::string_view encode(std::string_view plain) {
    if (!snappy_out && !deflate_out) return plain;
    scratch.clear();
    if (snappy_out) snappy_out->encode(plain, scratch);
    if (deflate_out) deflate_out->encode(plain, scratch);
    return scratch;
  }
};

Connection::Connection(asio::io_context& io, std::string address, const Config& config,
                       Delegate* delegate, spdlog::logger& log)
    : io_(io),
      address_(std::move(address)),
      config_(config),
      delegate_(delegate),
      log_(log),
      socket_(io),
      write_signal_(io, Clock::time_point::max()),
      watchdog_timer_(io),
      transport_(std::make_unique<Transport>()) {}

Connection::~Connection() = default;

void Connection::start() {
  auto self = shared_from_this();
  asio::co_spawn(
      io_, [self]() { return self->run(); }, asio::detached);
  asio::co_spawn(
      io_, [self]() { return self->watchdog(); }, asio::detached);
}

void Connection::send(std::string_view command) {
  if (closed_) return;
  outgoing_.append(command);
  write_signal_.cancel();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  boost::system::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  write_signal_.cancel();
  watchdog_timer_.cancel();
  if (!close_reported_) {
    close_reported_ = true;
    delegate_->on_closed(*this, "");
  }
}

void Connection::close_when_flushed() {
  if (!ready_) {
    close();
    return;
  }
  close_when_flushed_ = true;
  write_signal_.cancel();
}

void Connection::fail(const std::string& reason) {
  if (closed_) return;
  log_.error("({}) {}", address_, reason);
  closed_ = true;
  boost::system::error_code ec;
  socket_.close(ec);
  write_signal_.cancel();
  watchdog_timer_.cancel();
  if (!close_reported_) {
    close_reported_ = true;
    delegate_->on_closed(*this, reason);
  }
}

void Connection::arm_watchdog() {
  watchdog_timer_.expires_at(std::min(read_deadline_, write_deadline_));
}

awaitable<void> Connection::watchdog() {
  auto self = shared_from_this();
  while (!closed_) {
    boost::system::error_code ec;
    arm_watchdog();
    co_await watchdog_timer_.async_wait(asio::redirect_error(use_awaitable, ec));
    if (closed_) break;
    auto now = Clock::now();
    if (now >= read_deadline_) {
      fail(ready_ ? "IO error - read timed out" : "connect/handshake timed out");
    } else if (now >= write_deadline_) {
      fail("IO error - write timed out");
    }
  }
}

awaitable<bool> Connection::write_now(std::string_view bytes) {
  boost::system::error_code ec;
  write_deadline_ = Clock::now() + config_.write_timeout;
  arm_watchdog();
  std::string_view wire = transport_->encode(bytes);
  if (transport_->tls) {
    co_await asio::async_write(*transport_->tls, asio::buffer(wire.data(), wire.size()),
                               asio::redirect_error(use_awaitable, ec));
  } else {
    co_await asio::async_write(socket_, asio::buffer(wire.data(), wire.size()),
                               asio::redirect_error(use_awaitable, ec));
  }
  write_deadline_ = Clock::time_point::max();
  if (ec) {
    fail("IO error - " + ec.message());
    co_return false;
  }
  co_return true;
}

awaitable<std::optional<Frame>> Connection::read_frame() {
  char buf[64 * 1024];
  for (;;) {
    if (auto frame = decoder_.next()) co_return frame;
    if (decoder_.error()) {
      fail("IO error - bad frame: " + decoder_.error().message());
      co_return std::nullopt;
    }
    read_deadline_ = Clock::now() + config_.read_timeout;
    arm_watchdog();
    boost::system::error_code ec;
    std::size_t n = 0;
    if (transport_->tls) {
      n = co_await transport_->tls->async_read_some(asio::buffer(buf),
                                                    asio::redirect_error(use_awaitable, ec));
    } else {
      n = co_await socket_.async_read_some(asio::buffer(buf),
                                           asio::redirect_error(use_awaitable, ec));
    }
    if (ec || closed_) {
      bool eof = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
      if (!closed_) fail(eof ? "EOF" : "IO error - " + ec.message());
      co_return std::nullopt;
    }
    std::string plain;
    if (auto bad = transport_->decode(std::string_view(buf, n), plain)) {
      fail("IO error - " + bad.message());
      co_return std::nullopt;
    }
    decoder_.put(plain);
  }
}

// Connects and negotiates; returns an error text, empty on success.
awaitable<std::string> Connection::handshake() {
  std::string host, port;
  if (!split_host_port(address_, host, port)) co_return "invalid address " + address_;
  read_deadline_ = Clock::now() + config_.dial_timeout;
  arm_watchdog();
  boost::system::error_code ec;
  asio::ip::tcp::resolver resolver(io_);
  auto endpoints =
      co_await resolver.async_resolve(host, port, asio::redirect_error(use_awaitable, ec));
  if (ec) co_return "dial tcp " + address_ + ": " + ec.message();
  co_await asio::async_connect(socket_, endpoints, asio::redirect_error(use_awaitable, ec));
  if (ec || closed_) co_return "dial tcp " + address_ + ": " + (ec ? ec.message() : "closed");
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);

  std::string hello(kMagicV2);
  hello += command_with_body("IDENTIFY", identify_body(config_));
  if (!co_await write_now(hello)) co_return std::string();
  auto reply = co_await read_frame();
  if (!reply) co_return std::string();
  if (reply->type == FrameType::error) co_return "IDENTIFY failed: " + reply->data;
  auto negotiated = parse_identify_reply(reply->data);
  if (!negotiated) co_return negotiated.error();
  if (negotiated->max_rdy_count) settings_.max_rdy_count = *negotiated->max_rdy_count;
  if (negotiated->msg_timeout_ms) settings_.msg_timeout_ms = *negotiated->msg_timeout_ms;
  if (negotiated->auth_required) settings_.auth_required = *negotiated->auth_required;
  if (std::string error =
          co_await upgrade(negotiated->tls_v1, negotiated->deflate, negotiated->snappy);
      !error.empty() || closed_)
    co_return error;
  if (settings_.auth_required) {
    if (config_.auth_secret.empty()) co_return "Auth Required";
    if (!co_await write_now(command_with_body("AUTH", config_.auth_secret)))
      co_return std::string();
    auto auth = co_await read_frame();
    if (!auth) co_return std::string();
    if (auth->type == FrameType::error) co_return "Auth Failed " + auth->data;
    log_.info("({}) Auth accepted {}", address_, auth->data);
  }
  co_return std::string();
}

void Connection::refeed_buffered() {
  std::string early = decoder_.take_buffered();
  if (early.empty()) return;
  std::string plain;
  if (auto bad = transport_->decode(early, plain)) {
    fail("IO error - " + bad.message());
    return;
  }
  decoder_.put(plain);
}

awaitable<std::string> Connection::expect_ok(std::string_view what) {
  auto reply = co_await read_frame();
  if (!reply) co_return std::string();
  if (reply->type != FrameType::response || reply->data != "OK")
    co_return std::string(what) + " upgrade failed: " + reply->data;
  co_return std::string();
}

awaitable<std::string> Connection::upgrade(bool tls, bool deflate, bool snappy) {
  if (tls) {
    if (!config_.tls_v1) co_return "nsqd enabled tls_v1 that was not asked for";
    if (decoder_.buffered() != 0) co_return "unexpected bytes before the TLS handshake";
    auto& t = *transport_;
    t.tls_context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    SSL_CTX* ctx = t.tls_context->native_handle();
    SSL_CTX_set_min_proto_version(ctx, tls_min_version(config_.tls_min_version));
    SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
    boost::system::error_code ec;
    if (!config_.tls_root_ca_file.empty()) {
      t.tls_context->load_verify_file(config_.tls_root_ca_file, ec);
      if (ec) co_return "tls_root_ca_file " + config_.tls_root_ca_file + ": " + ec.message();
    } else {
      t.tls_context->set_default_verify_paths(ec);
    }
    if (!config_.tls_cert.empty()) {
      t.tls_context->use_certificate_chain_file(config_.tls_cert, ec);
      if (ec) co_return "tls_cert " + config_.tls_cert + ": " + ec.message();
      t.tls_context->use_private_key_file(config_.tls_key, asio::ssl::context::pem, ec);
      if (ec) co_return "tls_key " + config_.tls_key + ": " + ec.message();
    }
    t.tls_context->set_verify_mode(config_.tls_insecure_skip_verify ? asio::ssl::verify_none
                                                                    : asio::ssl::verify_peer);
    t.tls = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, *t.tls_context);
    // The name checked against the certificate is the one we dialled, as Go does.
    std::string host = address_.substr(0, address_.rfind(':'));
    if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
    SSL* ssl = t.tls->native_handle();
    if (is_ip_literal(host)) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, host.c_str());
      SSL_set1_host(ssl, host.c_str());
    }
    co_await t.tls->async_handshake(asio::ssl::stream_base::client,
                                    asio::redirect_error(use_awaitable, ec));
    if (ec) co_return "TLS handshake failed: " + ec.message();
    if (std::string error = co_await expect_ok("TLS"); !error.empty() || closed_) co_return error;
  }
  if (deflate) {
    if (!config_.deflate) co_return "nsqd enabled deflate that was not asked for";
    transport_->deflate_out = std::make_unique<codec::DeflateStreamEncoder>(config_.deflate_level);
    transport_->deflate_in = std::make_unique<codec::DeflateStreamDecoder>();
    refeed_buffered();
    if (std::string error = co_await expect_ok("deflate"); !error.empty() || closed_)
      co_return error;
  }
  if (snappy) {
    if (!config_.snappy) co_return "nsqd enabled snappy that was not asked for";
    transport_->snappy_out = std::make_unique<codec::SnappyStreamEncoder>();
    transport_->snappy_in = std::make_unique<codec::SnappyStreamDecoder>();
    refeed_buffered();
    if (std::string error = co_await expect_ok("snappy"); !error.empty() || closed_)
      co_return error;
  }
  co_return std::string();
}

awaitable<void> Connection::run() {
  auto self = shared_from_this();
  std::string error = co_await handshake();
  if (closed_) co_return;  // the failure was reported already
  if (!error.empty()) {
    fail(error);
    co_return;
  }
  ready_ = true;
  read_deadline_ = Clock::time_point::max();
  asio::co_spawn(
      io_, [self]() { return self->write_loop(); }, asio::detached);
  delegate_->on_ready(*this);
  while (!closed_) {
    auto frame = co_await read_frame();
    if (!frame) break;
    handle_frame(std::move(*frame));
  }
}

void Connection::handle_frame(Frame frame) {
  switch (frame.type) {
    case FrameType::response:
      if (frame.data == "_heartbeat_") {
        send("NOP\n");
        return;
      }
      delegate_->on_response(*this, frame.data);
      return;
    case FrameType::error:
      delegate_->on_error_frame(*this, frame.data);
      return;
    case FrameType::message: {
      auto decoded = decode_message(frame.data);
      if (!decoded) {
        fail("IO error - bad message frame");
        return;
      }
      delegate_->on_message(*this, decoded->header, std::string(decoded->body));
      return;
    }
  }
  fail("IO error - unknown frame type " + std::to_string(static_cast<int32_t>(frame.type)));
}

awaitable<void> Connection::write_loop() {
  auto self = shared_from_this();
  while (!closed_) {
    if (outgoing_.empty()) {
      if (close_when_flushed_) {
        close();
        break;
      }
      boost::system::error_code ec;
      write_signal_.expires_at(Clock::time_point::max());
      co_await write_signal_.async_wait(asio::redirect_error(use_awaitable, ec));
      continue;
    }
    writing_.swap(outgoing_);
    outgoing_.clear();
    if (!co_await write_now(writing_)) break;
    writing_.clear();
  }
}

}  // namespace nsq::client
