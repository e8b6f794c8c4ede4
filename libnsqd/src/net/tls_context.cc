#include "net/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <boost/asio/ssl/context.hpp>

namespace nsq::nsqd {

namespace ssl = boost::asio::ssl;

namespace {

std::string openssl_error(const boost::system::error_code& ec) {
  std::string text = ec.message();
  if (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    text = buf;
  }
  ERR_clear_error();
  return text;
}

// Go's tls.RequireAnyClientCert: a certificate is demanded but not checked.
int accept_any_certificate(int, X509_STORE_CTX*) { return 1; }

}  // namespace

tl::expected<std::shared_ptr<ssl::context>, std::string> make_tls_context(const Options& o) {
  if (o.tls_cert.empty() && o.tls_key.empty()) return std::shared_ptr<ssl::context>();
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  boost::system::error_code ec;
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::single_dh_use,
                   ec);
  SSL_CTX* native = ctx->native_handle();
  if (SSL_CTX_set_min_proto_version(native, static_cast<int>(o.tls_min_version)) != 1) {
    return tl::unexpected(std::string("failed to set TLS minimum version"));
  }
  ctx->use_certificate_chain_file(o.tls_cert, ec);
  if (ec)
    return tl::unexpected("failed to load certificate " + o.tls_cert + " - " + openssl_error(ec));
  ctx->use_private_key_file(o.tls_key, ssl::context::pem, ec);
  if (ec) return tl::unexpected("failed to load key " + o.tls_key + " - " + openssl_error(ec));
  if (SSL_CTX_check_private_key(native) != 1) {
    return tl::unexpected(
        std::string("failed to load key pair - private key does not match certificate"));
  }
  if (o.tls_client_auth_policy == "require" || o.tls_client_auth_policy == "require-verify") {
    ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    if (o.tls_client_auth_policy == "require") {
      SSL_CTX_set_verify(native, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                         accept_any_certificate);
    } else if (!o.tls_root_ca_file.empty()) {
      ctx->load_verify_file(o.tls_root_ca_file, ec);
      if (ec) {
        return tl::unexpected("failed to load " + o.tls_root_ca_file + " - " + openssl_error(ec));
      }
      // Also announce the accepted CAs to the client, as Go's ClientCAs does.
      if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(o.tls_root_ca_file.c_str())) {
        SSL_CTX_set_client_CA_list(native, names);
      }
    } else {
      ctx->set_default_verify_paths(ec);
    }
  }
  return ctx;
}

}  // namespace nsq::nsqd
