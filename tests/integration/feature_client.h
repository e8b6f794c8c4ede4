#pragma once

// A blocking test client for the IDENTIFY upgrades: plain TCP, then TLS
// (OpenSSL), then snappy or deflate (libnsq's codecs), in the order the spec
// gives. It can also write raw bytes under the compression layer, to send a
// server corrupt input on purpose.

#include <openssl/ssl.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "nsq/codec/deflate_stream.h"
#include "nsq/codec/snappy_stream.h"
#include "nsq/frame.h"

namespace nsq::integration {

struct TlsClientOptions {
  std::string ca_file;    // verify the server against it; empty: no verification
  std::string cert_file;  // client certificate (with key_file), optional
  std::string key_file;
  int max_version = 0;  // e.g. TLS1_1_VERSION to offer no more than that; 0: any
};

// @par Thread Safety: none; one thread per client.
class FeatureClient {
 public:
  FeatureClient() = default;
  ~FeatureClient();
  FeatureClient(const FeatureClient&) = delete;
  FeatureClient& operator=(const FeatureClient&) = delete;

  // Connects to 127.0.0.1:port and sends the "  V2" magic.
  bool connect(int port) { return connect_raw(port) && send("  V2"); }
  bool connect_raw(int port);
  // Through every active layer.
  bool send(std::string_view bytes);
  // Through TLS (if on) but not compression: for corrupt compressed input.
  bool send_under_compression(std::string_view bytes);
  bool send_command(std::string_view line, std::string_view body);  // "<line>" [size][body]
  bool identify(std::string_view json) { return send_command("IDENTIFY\n", json); }

  // The next frame (heartbeats are answered with NOP and skipped), or nullopt
  // on timeout, close, or a broken stream.
  std::optional<Frame> read_frame(std::chrono::milliseconds timeout);
  // Everything (decoded) until the server closes, for HTTP over TLS.
  std::string read_until_closed(std::chrono::milliseconds timeout);
  // True once the server closed the connection (frames before are dropped).
  bool wait_closed(std::chrono::milliseconds timeout);

  // The upgrades; "" on success, else what failed.
  std::string start_tls(const TlsClientOptions& options);
  // Bytes already read past the last frame are compressed: decoded now.
  bool start_snappy();
  bool start_deflate(int level);

  std::string tls_version() const;

 private:
  // Some bytes from the socket (through TLS); "" on timeout, nullopt on close/error.
  std::optional<std::string> read_some(std::chrono::milliseconds timeout);
  bool write_wire(std::string_view bytes);
  bool decode(std::string_view wire, std::string& plain);

  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  std::optional<codec::SnappyStreamEncoder> snappy_out_;
  std::optional<codec::SnappyStreamDecoder> snappy_in_;
  std::unique_ptr<codec::DeflateStreamEncoder> deflate_out_;
  std::unique_ptr<codec::DeflateStreamDecoder> deflate_in_;
  std::string pending_;  // plain bytes not yet parsed into frames
};

}  // namespace nsq::integration
