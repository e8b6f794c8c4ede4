#include "integration/feature_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "nsq/endian.h"

namespace nsq::integration {

using Clock = std::chrono::steady_clock;

FeatureClient::~FeatureClient() {
  if (ssl_) SSL_free(ssl_);
  if (ctx_) SSL_CTX_free(ctx_);
  if (fd_ >= 0) ::close(fd_);
}

bool FeatureClient::connect_raw(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return false;
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return true;
}

bool FeatureClient::write_wire(std::string_view bytes) {
  while (!bytes.empty()) {
    long n = ssl_ ? SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()))
                  : ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool FeatureClient::send(std::string_view bytes) {
  std::string encoded;
  if (snappy_out_) {
    snappy_out_->encode(bytes, encoded);
    return write_wire(encoded);
  }
  if (deflate_out_) {
    deflate_out_->encode(bytes, encoded);
    return write_wire(encoded);
  }
  return write_wire(bytes);
}

bool FeatureClient::send_under_compression(std::string_view bytes) { return write_wire(bytes); }

bool FeatureClient::send_command(std::string_view line, std::string_view body) {
  std::string out(line);
  char size[4];
  put_u32be(size, static_cast<uint32_t>(body.size()));
  out.append(size, 4);
  out.append(body);
  return send(out);
}

std::optional<std::string> FeatureClient::read_some(std::chrono::milliseconds timeout) {
  if (!(ssl_ && SSL_pending(ssl_) > 0)) {
    pollfd p{fd_, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (rc == 0) return std::string();
    if (rc < 0) return std::nullopt;
  }
  char buf[65536];
  long n = ssl_ ? SSL_read(ssl_, buf, sizeof buf) : ::recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) return std::nullopt;
  return std::string(buf, static_cast<std::size_t>(n));
}

bool FeatureClient::decode(std::string_view wire, std::string& plain) {
  if (snappy_in_) return !snappy_in_->put(wire, plain);
  if (deflate_in_) return !deflate_in_->put(wire, plain);
  plain.append(wire);
  return true;
}

std::optional<Frame> FeatureClient::read_frame(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    while (pending_.size() >= 8) {
      uint32_t size = get_u32be(pending_.data());
      if (size < 4 || size > 64 * 1024 * 1024) return std::nullopt;
      if (pending_.size() < 4 + size) break;
      Frame f{static_cast<FrameType>(get_u32be(pending_.data() + 4)), pending_.substr(8, size - 4)};
      pending_.erase(0, 4 + size);
      if (f.type == FrameType::response && f.data == "_heartbeat_") {
        send("NOP\n");
        continue;
      }
      return f;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    auto got = read_some(left);
    if (!got) return std::nullopt;
    if (!decode(*got, pending_)) return std::nullopt;
  }
}

std::string FeatureClient::read_until_closed(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  std::string all = std::move(pending_);
  pending_.clear();
  while (Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto got = read_some(left);
    if (!got) break;
    all += *got;
  }
  return all;
}

bool FeatureClient::wait_closed(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto got = read_some(left);
    if (!got) return true;
  }
  return false;
}

std::string FeatureClient::start_tls(const TlsClientOptions& o) {
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (!ctx_) return "SSL_CTX_new failed";
  if (o.max_version) SSL_CTX_set_max_proto_version(ctx_, o.max_version);
  if (!o.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx_, o.ca_file.c_str(), nullptr) != 1) return "bad CA file";
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  }
  if (!o.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx_, o.cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx_, o.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      return "bad client certificate";
    }
  }
  ssl_ = SSL_new(ctx_);
  SSL_set_fd(ssl_, fd_);
  if (SSL_connect(ssl_) != 1) {
    SSL_free(ssl_);
    ssl_ = nullptr;
    return "TLS handshake failed";
  }
  return "";
}

bool FeatureClient::start_snappy() {
  snappy_out_.emplace();
  snappy_in_.emplace();
  std::string early = std::move(pending_);
  pending_.clear();
  return decode(early, pending_);
}

bool FeatureClient::start_deflate(int level) {
  deflate_out_ = std::make_unique<codec::DeflateStreamEncoder>(level);
  deflate_in_ = std::make_unique<codec::DeflateStreamDecoder>();
  std::string early = std::move(pending_);
  pending_.clear();
  return decode(early, pending_);
}

std::string FeatureClient::tls_version() const { return ssl_ ? SSL_get_version(ssl_) : ""; }

}  // namespace nsq::integration
