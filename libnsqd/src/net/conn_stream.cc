#include "net/conn_stream.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstring>

namespace nsq::nsqd {

namespace asio = boost::asio;
using asio::awaitable;
using asio::use_awaitable;

namespace {

// Compressed input read per step (Go's buffer size).
constexpr std::size_t kRawChunk = 16 * 1024;
// Plain bytes decoded per step, ahead of the protocol parser: deflate
// inflates up to ~1000x and snappy ~20x, so one 16 KiB read of a
// compression bomb would otherwise pin megabytes per connection until the
// parser had consumed them all (issue 23).
constexpr std::size_t kDecodeStep = 64 * 1024;

}  // namespace

ConnStream::ConnStream(asio::ip::tcp::socket& socket) : socket_(socket) {}

ConnStream::~ConnStream() = default;

awaitable<std::size_t> ConnStream::read_raw(asio::mutable_buffer buf,
                                            boost::system::error_code& ec) {
  if (tls_) co_return co_await tls_->async_read_some(buf, asio::redirect_error(use_awaitable, ec));
  co_return co_await socket_.async_read_some(buf, asio::redirect_error(use_awaitable, ec));
}

awaitable<void> ConnStream::write_raw(std::string_view bytes, boost::system::error_code& ec) {
  if (tls_) {
    co_await asio::async_write(*tls_, asio::buffer(bytes.data(), bytes.size()),
                               asio::redirect_error(use_awaitable, ec));
  } else {
    co_await asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()),
                               asio::redirect_error(use_awaitable, ec));
  }
}

std::error_code ConnStream::decode(std::string_view compressed) {
  if (decoded_pos_ == decoded_.size()) {
    decoded_.clear();
    decoded_pos_ = 0;
  }
  if (snappy_in_) return snappy_in_->put(compressed, decoded_, kDecodeStep);
  if (deflate_in_) return deflate_in_->put(compressed, decoded_, kDecodeStep);
  decoded_.append(compressed);
  return {};
}

bool ConnStream::decoder_has_more() const noexcept {
  return (snappy_in_ && snappy_in_->more()) || (deflate_in_ && deflate_in_->more());
}

awaitable<std::size_t> ConnStream::read_some(asio::mutable_buffer buf,
                                             boost::system::error_code& ec) {
  ec = {};
  if (!snappy_in_ && !deflate_in_ && decoded_pos_ == decoded_.size()) {
    co_return co_await read_raw(buf, ec);  // no copy on the plain path
  }
  while (decoded_pos_ == decoded_.size()) {
    std::size_t n = 0;
    if (!decoder_has_more()) {
      raw_.resize(kRawChunk);
      n = co_await read_raw(asio::buffer(raw_), ec);
      if (ec) co_return 0;
    }
    if (std::error_code dec = decode(std::string_view(raw_).substr(0, n))) {
      codec_error_ = dec;
      ec = boost::system::errc::make_error_code(boost::system::errc::protocol_error);
      co_return 0;
    }
  }
  std::size_t n = std::min(buf.size(), decoded_.size() - decoded_pos_);
  std::memcpy(buf.data(), decoded_.data() + decoded_pos_, n);
  decoded_pos_ += n;
  co_return n;
}

awaitable<void> ConnStream::write(std::string_view plain, boost::system::error_code& ec) {
  ec = {};
  if (snappy_out_ || deflate_out_) {
    encoded_.clear();
    if (snappy_out_) {
      snappy_out_->encode(plain, encoded_);
    } else {
      deflate_out_->encode(plain, encoded_);
    }
    co_await write_raw(encoded_, ec);
    co_return;
  }
  co_await write_raw(plain, ec);
}

std::size_t ConnStream::write_some_now(std::string_view plain) noexcept {
  if (tls_ || snappy_out_ || deflate_out_ || plain.empty()) return 0;
  const ssize_t n =
      ::send(socket_.native_handle(), plain.data(), plain.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

awaitable<void> ConnStream::start_tls(asio::ssl::context& ctx, std::string_view already_read,
                                      std::chrono::milliseconds timeout,
                                      boost::system::error_code& ec) {
  tls_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket&>>(socket_, ctx);
  // The 5 s handshake deadline: closing the socket fails the handshake.
  asio::steady_timer deadline(socket_.get_executor(), timeout);
  bool timed_out = false;
  deadline.async_wait([this, &timed_out](boost::system::error_code wait_ec) {
    if (wait_ec) return;
    timed_out = true;
    boost::system::error_code ignored;
    socket_.close(ignored);
  });
  co_await tls_->async_handshake(asio::ssl::stream_base::server,
                                 asio::buffer(already_read.data(), already_read.size()),
                                 asio::redirect_error(use_awaitable, ec));
  deadline.cancel();
  if (timed_out && !ec) ec = asio::error::timed_out;
  // The timer's handler refers to timed_out: let it run (cancelled) first.
  boost::system::error_code ignored;
  deadline.expires_at(std::chrono::steady_clock::time_point::min());
  co_await deadline.async_wait(asio::redirect_error(use_awaitable, ignored));
  if (ec) tls_.reset();
}

std::error_code ConnStream::start_snappy(std::string_view already_read) {
  snappy_out_.emplace();
  snappy_in_.emplace();
  return decode(already_read);
}

std::error_code ConnStream::start_deflate(int level, std::string_view already_read) {
  deflate_out_ = std::make_unique<codec::DeflateStreamEncoder>(level);
  deflate_in_ = std::make_unique<codec::DeflateStreamDecoder>();
  return decode(already_read);
}

std::string ConnStream::tls_common_name() const {
  if (!tls_) return {};
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  X509* cert = SSL_get1_peer_certificate(tls_->native_handle());
#else
  X509* cert = SSL_get_peer_certificate(tls_->native_handle());
#endif
  if (!cert) return {};
  std::string cn;
  X509_NAME* name = X509_get_subject_name(cert);
  int idx = name ? X509_NAME_get_index_by_NID(name, NID_commonName, -1) : -1;
  if (idx >= 0) {
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, idx));
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, data);
    if (len >= 0) cn.assign(reinterpret_cast<char*>(utf8), static_cast<std::size_t>(len));
    OPENSSL_free(utf8);
  }
  X509_free(cert);
  return cn;
}

std::string ConnStream::tls_version() const {
  if (!tls_) return {};
  switch (SSL_version(tls_->native_handle())) {
    case TLS1_VERSION:
      return "TLS1.0";
    case TLS1_1_VERSION:
      return "TLS1.1";
    case TLS1_2_VERSION:
      return "TLS1.2";
    case TLS1_3_VERSION:
      return "TLS1.3";
    default:
      return "Unknown " + std::to_string(SSL_version(tls_->native_handle()));
  }
}

std::string ConnStream::tls_cipher_suite() const {
  if (!tls_) return {};
  const SSL_CIPHER* c = SSL_get_current_cipher(tls_->native_handle());
  const char* name = c ? SSL_CIPHER_standard_name(c) : nullptr;
  return name ? name : "";
}

}  // namespace nsq::nsqd
