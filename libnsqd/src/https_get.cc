#include "https_get.h"

// GCC 12 pairs the inlined coroutine-frame operator new of Asio 1.74's
// awaitable with the wrong delete: a false positive (as in libnsq's server).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

#include <utility>  // before Asio's awaitable header (Boost 1.74)

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <openssl/ssl.h>

#include <cctype>

namespace nsq::nsqd {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

tl::expected<http::ClientResponse, std::string> https_get(
    const std::string& host, std::uint16_t port, const std::string& target,
    const std::string& root_ca_file, std::chrono::milliseconds connect_timeout,
    std::chrono::milliseconds request_timeout, std::size_t max_body) {
  const std::string where = host + ":" + std::to_string(port);
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  boost::system::error_code ec;
  if (root_ca_file.empty()) {
    ctx.set_default_verify_paths(ec);
  } else {
    ctx.load_verify_file(root_ca_file, ec);
  }
  if (ec) return tl::unexpected("TLS roots: " + ec.message());
  ctx.set_verify_mode(asio::ssl::verify_peer);
  ctx.set_verify_callback(asio::ssl::host_name_verification(host));

  // Everything asynchronous on a private io_context, run for at most the
  // timeouts: a blocking call with deadlines, without threads of its own.
  asio::io_context ioc(1);
  tcp::resolver resolver(ioc);
  auto endpoints = resolver.resolve(host, std::to_string(port), ec);
  if (ec) return tl::unexpected("lookup " + host + ": " + ec.message());
  asio::ssl::stream<tcp::socket> stream(ioc, ctx);
  // SNI for names (not for IP literals, as Go does).
  boost::system::error_code not_ip;
  asio::ip::make_address(host, not_ip);
  if (not_ip) SSL_set_tlsext_host_name(stream.native_handle(), host.c_str());

  std::string failure;
  http::ClientResponse result;
  beast::flat_buffer buffer;
  bhttp::request<bhttp::empty_body> req(bhttp::verb::get, target, 10);
  req.set(bhttp::field::host, where);
  req.set(bhttp::field::user_agent, "nsqd/1.3.0");
  req.set(bhttp::field::accept, "application/vnd.nsq; version=1.0");
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(max_body);

  bool connected = false;
  asio::async_connect(
      stream.next_layer(), endpoints,
      [&](boost::system::error_code connect_ec, const tcp::endpoint&) {
        connected = !connect_ec;
        if (connect_ec) {
          failure = "dial tcp " + where + ": " + connect_ec.message();
          return;
        }
        stream.async_handshake(
            asio::ssl::stream_base::client, [&](boost::system::error_code hs_ec) {
              if (hs_ec) {
                failure = "TLS handshake with " + where + ": " + hs_ec.message();
                return;
              }
              bhttp::async_write(stream, req, [&](boost::system::error_code w_ec, std::size_t) {
                if (w_ec) {
                  failure = "write " + where + ": " + w_ec.message();
                  return;
                }
                bhttp::async_read(
                    stream, buffer, parser, [&](boost::system::error_code r_ec, std::size_t) {
                      if (r_ec) {
                        failure = "read " + where + ": " + r_ec.message();
                        return;
                      }
                      auto& res = parser.get();
                      result.status = static_cast<int>(res.result_int());
                      for (const auto& field : res) {
                        result.headers.emplace_back(lower(std::string(field.name_string())),
                                                    std::string(field.value()));
                      }
                      result.body = std::move(res.body());
                    });
              });
            });
      });
  // The connect deadline first, then the rest of the request's.
  const auto start = std::chrono::steady_clock::now();
  ioc.run_for(connect_timeout);
  if (!ioc.stopped() && !connected) {
    boost::system::error_code ignored;
    stream.next_layer().close(ignored);
    ioc.run_for(std::chrono::milliseconds(100));  // let the handler see the close
    return tl::unexpected("dial tcp " + where + ": i/o timeout");
  }
  auto left = request_timeout - std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::steady_clock::now() - start);
  if (!ioc.stopped() && left.count() > 0) ioc.run_for(left);
  if (!ioc.stopped()) {
    boost::system::error_code ignored;
    stream.next_layer().close(ignored);
    ioc.run_for(std::chrono::milliseconds(100));  // let the handlers see the close
    return tl::unexpected("GET https://" + where + target + ": timeout");
  }
  if (!failure.empty()) return tl::unexpected(failure);
  return result;
}

}  // namespace nsq::nsqd
