// Socket's optional layers: TLS (OpenSSL on the blocking fd) and snappy or
// deflate (libnsq's codecs), for benchmarking nsqd's negotiated features.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "nsq/codec/deflate_stream.h"
#include "nsq/codec/snappy_stream.h"
#include "socket.h"

namespace nsq::bench {

struct Socket::Layers {
  SSL_CTX* ctx = nullptr;
  SSL* ssl = nullptr;
  std::optional<codec::SnappyStreamEncoder> snappy_out;
  std::optional<codec::SnappyStreamDecoder> snappy_in;
  std::unique_ptr<codec::DeflateStreamEncoder> deflate_out;
  std::unique_ptr<codec::DeflateStreamDecoder> deflate_in;
  std::string encoded;  // scratch for writes
  std::string decoded;  // plain bytes not yet returned
  std::size_t decoded_pos = 0;
  std::vector<char> raw = std::vector<char>(64 * 1024);

  ~Layers() {
    if (ssl) SSL_free(ssl);
    if (ctx) SSL_CTX_free(ctx);
  }
  bool compressed() const { return snappy_in || deflate_in; }
  std::error_code decode(std::string_view in) {
    if (decoded_pos == decoded.size()) {
      decoded.clear();
      decoded_pos = 0;
    }
    if (snappy_in) return snappy_in->put(in, decoded);
    if (deflate_in) return deflate_in->put(in, decoded);
    decoded.append(in);
    return {};
  }
};

Socket::Socket() = default;
Socket::Socket(int fd) noexcept : fd_(fd) {}
Socket::Socket(Socket&& other) noexcept
    : fd_(other.fd_), recv_timeout_(other.recv_timeout_), layers_(std::move(other.layers_)) {
  other.fd_ = -1;
}
Socket::~Socket() {
  layers_.reset();
  if (fd_ >= 0) ::close(fd_);
}

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    layers_.reset();
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    recv_timeout_ = other.recv_timeout_;
    other.fd_ = -1;
    layers_ = std::move(other.layers_);
  }
  return *this;
}

namespace {

std::string ssl_error(std::string_view what) {
  std::string s(what);
  if (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    s += ": ";
    s += buf;
  }
  return s;
}

}  // namespace

Expected<void> Socket::start_tls() {
  if (!layers_) layers_ = std::make_unique<Layers>();
  Layers& l = *layers_;
  l.ctx = SSL_CTX_new(TLS_client_method());
  if (!l.ctx) return tl::unexpected(ssl_error("TLS"));
  l.ssl = SSL_new(l.ctx);
  SSL_set_fd(l.ssl, fd_);
  if (SSL_connect(l.ssl) != 1) return tl::unexpected(ssl_error("TLS handshake"));
  return {};
}

Expected<void> Socket::start_snappy(std::string_view already_read) {
  if (!layers_) layers_ = std::make_unique<Layers>();
  layers_->snappy_out.emplace();
  layers_->snappy_in.emplace();
  if (auto ec = layers_->decode(already_read)) return tl::unexpected(ec.message());
  return {};
}

Expected<void> Socket::start_deflate(int level, std::string_view already_read) {
  if (!layers_) layers_ = std::make_unique<Layers>();
  layers_->deflate_out = std::make_unique<codec::DeflateStreamEncoder>(level);
  layers_->deflate_in = std::make_unique<codec::DeflateStreamDecoder>();
  if (auto ec = layers_->decode(already_read)) return tl::unexpected(ec.message());
  return {};
}

Expected<void> Socket::write_layered(std::string_view bytes) {
  Layers& l = *layers_;
  if (l.snappy_out || l.deflate_out) {
    l.encoded.clear();
    if (l.snappy_out) {
      l.snappy_out->encode(bytes, l.encoded);
    } else {
      l.deflate_out->encode(bytes, l.encoded);
    }
    bytes = l.encoded;
  }
  if (!l.ssl) return write_raw(bytes);
  while (!bytes.empty()) {
    const int n = SSL_write(l.ssl, bytes.data(),
                            static_cast<int>(std::min<std::size_t>(bytes.size(), 1 << 30)));
    if (n <= 0) return tl::unexpected(ssl_error("TLS write"));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Expected<std::size_t> Socket::read_layered(std::span<char> buf, std::chrono::nanoseconds timeout) {
  Layers& l = *layers_;
  while (l.decoded_pos == l.decoded.size()) {
    std::span<char> into = l.compressed() ? std::span<char>(l.raw) : buf;
    std::size_t n = 0;
    if (l.ssl) {
      if (SSL_pending(l.ssl) == 0) {
        pollfd p{fd_, POLLIN, 0};
        const int ms = static_cast<int>(
            std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count());
        const int r = ::poll(&p, 1, ms);
        if (r < 0) return tl::unexpected(std::string("poll: ") + std::strerror(errno));
        if (r == 0) return 0;
      }
      const int got = SSL_read(l.ssl, into.data(), static_cast<int>(into.size()));
      if (got <= 0) {
        const int err = SSL_get_error(l.ssl, got);
        if (err == SSL_ERROR_WANT_READ) return 0;  // a partial record: try again later
        if (err == SSL_ERROR_ZERO_RETURN) return tl::unexpected(std::string(kPeerClosed));
        return tl::unexpected(ssl_error("TLS read"));
      }
      n = static_cast<std::size_t>(got);
    } else {
      auto got = read_raw(into, timeout);
      if (!got) return got;
      n = *got;
    }
    if (n == 0) return 0;
    if (!l.compressed()) return n;  // TLS only: read straight into buf
    if (auto ec = l.decode(std::string_view(l.raw.data(), n))) return tl::unexpected(ec.message());
    timeout = std::chrono::nanoseconds::zero();  // decoded nothing yet: only what is there
    if (l.decoded_pos == l.decoded.size()) return 0;
  }
  const std::size_t n = std::min(buf.size(), l.decoded.size() - l.decoded_pos);
  std::memcpy(buf.data(), l.decoded.data() + l.decoded_pos, n);
  l.decoded_pos += n;
  return n;
}

}  // namespace nsq::bench
