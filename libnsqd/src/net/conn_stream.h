#pragma once

#include <utility>  // before Asio's awaitable header (Boost 1.74)

#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "nsq/codec/deflate_stream.h"
#include "nsq/codec/snappy_stream.h"

namespace nsq::nsqd {

// The byte stream under one protocol V2 connection: the TCP socket, then
// optionally TLS, then optionally snappy or deflate, each layer switched on
// in the middle of the stream by IDENTIFY (tcp-protocol.md, upgrade sequence).
// ClientConn reads and writes plain protocol bytes through it.
//
// Owned by one ClientConn and used on its thread only. One read and one
// write may be in flight at once (the read loop and the write loop); the
// upgrades happen while neither is.
class ConnStream {
 public:
  // `socket` must outlive this object.
  explicit ConnStream(boost::asio::ip::tcp::socket& socket);
  ~ConnStream();

  // Reads at least one plain byte into `buf` (bytes already decoded are
  // returned first). A corrupt compressed stream fails with protocol_error;
  // codec_error() then says why.
  boost::asio::awaitable<std::size_t> read_some(boost::asio::mutable_buffer buf,
                                                boost::system::error_code& ec);
  // Writes all of `plain`, compressed (with a flush) when compression is on.
  boost::asio::awaitable<void> write(std::string_view plain, boost::system::error_code& ec);
  // Writes what the socket takes of `plain` without waiting, on a plain
  // stream only (TLS and compression go through write()); returns the bytes
  // written, 0 when it cannot (a layered stream, a full socket buffer, an
  // error: write() meets the same error and reports it).
  std::size_t write_some_now(std::string_view plain) noexcept;

  // TLS server handshake on the raw socket; `already_read` holds bytes read
  // from the socket before the upgrade (the start of the client's hello when
  // it did not wait). Fails after `timeout` by closing the socket.
  boost::asio::awaitable<void> start_tls(boost::asio::ssl::context& ctx,
                                         std::string_view already_read,
                                         std::chrono::milliseconds timeout,
                                         boost::system::error_code& ec);
  // Compression from now on; `already_read` is the compressed input that was
  // read before the upgrade, decoded first.
  std::error_code start_snappy(std::string_view already_read);
  std::error_code start_deflate(int level, std::string_view already_read);

  std::error_code codec_error() const noexcept { return codec_error_; }
  bool tls() const noexcept { return tls_ != nullptr; }
  // Subject common name of the client certificate, "" without one.
  std::string tls_common_name() const;
  std::string tls_version() const;       // "TLS1.2", ... or ""
  std::string tls_cipher_suite() const;  // OpenSSL's name, or ""

 private:
  boost::asio::awaitable<std::size_t> read_raw(boost::asio::mutable_buffer buf,
                                               boost::system::error_code& ec);
  boost::asio::awaitable<void> write_raw(std::string_view bytes, boost::system::error_code& ec);
  // Decodes (a bounded step of) `compressed`; the decoder keeps what it has
  // not decoded yet, and decoder_has_more() says to call again with "".
  std::error_code decode(std::string_view compressed);
  bool decoder_has_more() const noexcept;

  boost::asio::ip::tcp::socket& socket_;
  std::unique_ptr<boost::asio::ssl::stream<boost::asio::ip::tcp::socket&>> tls_;
  std::optional<codec::SnappyStreamEncoder> snappy_out_;
  std::optional<codec::SnappyStreamDecoder> snappy_in_;
  std::unique_ptr<codec::DeflateStreamEncoder> deflate_out_;
  std::unique_ptr<codec::DeflateStreamDecoder> deflate_in_;
  std::string raw_;      // compressed bytes read, for the decoder
  std::string decoded_;  // plain bytes decoded and not yet returned
  std::size_t decoded_pos_ = 0;
  std::string encoded_;  // compressed bytes of the write in flight
  std::error_code codec_error_;
};

}  // namespace nsq::nsqd
