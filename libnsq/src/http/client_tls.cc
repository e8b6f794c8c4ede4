#include "http/client_tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace nsq::http::detail {
namespace {

struct CtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
struct SslFree {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};

// The newest queued OpenSSL error as text, with the queue cleared so the
// next call on this thread starts clean.
std::string openssl_error(std::string_view fallback) {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return std::string(fallback);
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? std::string(reason) : std::string(fallback);
}

bool is_ip_literal(const std::string& host) {
  unsigned char addr[16];
  return ::inet_pton(AF_INET, host.c_str(), addr) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), addr) == 1;
}

// OpenSSL writes to the socket with write(), which has no MSG_NOSIGNAL: a
// peer closing mid-request would raise SIGPIPE and kill a program that does
// not ignore it (a library must not require that). While alive, this blocks
// SIGPIPE on the calling thread and then discards one raised meanwhile, so
// the write fails with EPIPE instead.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipe_, nullptr, &zero) == -1 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
};

}  // namespace

struct TlsSession::State {
  std::unique_ptr<SSL_CTX, CtxFree> ctx;
  std::unique_ptr<SSL, SslFree> ssl;
  int fd = -1;
  std::string where;

  // Waits for what OpenSSL asked for after a call that returned `rc`; an
  // error text when the call failed for good or the deadline passed.
  tl::expected<void, std::string> wait(int rc, const char* op, Clock::time_point deadline) {
    int err = SSL_get_error(ssl.get(), rc);
    short events = err == SSL_ERROR_WANT_READ ? POLLIN : err == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
    if (events == 0) {
      const char* fallback = err == SSL_ERROR_SYSCALL && errno != 0 ? std::strerror(errno)
                             : err == SSL_ERROR_SYSCALL             ? "unexpected EOF"
                                                                    : "TLS error";
      return tl::unexpected(std::string(op) + " " + where + ": " + openssl_error(fallback));
    }
    if (!wait_for(fd, events, deadline)) {
      return tl::unexpected(std::string(op) + " " + where + ": i/o timeout");
    }
    return {};
  }
};

TlsSession::TlsSession(std::unique_ptr<State> state) : state_(std::move(state)) {}
TlsSession::TlsSession(TlsSession&&) noexcept = default;
TlsSession::~TlsSession() {
  // close_notify, best effort: the socket is non-blocking, so this never waits.
  if (state_ && state_->ssl) {
    SSL_shutdown(state_->ssl.get());
    ERR_clear_error();
  }
}

tl::expected<TlsSession, std::string> TlsSession::handshake(int fd, const ClientTls& tls,
                                                            const std::string& host,
                                                            const std::string& where,
                                                            Clock::time_point deadline) {
  ERR_clear_error();
  auto state = std::make_unique<State>();
  state->fd = fd;
  state->where = where;
  state->ctx.reset(SSL_CTX_new(TLS_client_method()));
  if (!state->ctx) return tl::unexpected("tls: " + openssl_error("cannot create a context"));
  SSL_CTX* ctx = state->ctx.get();
  // Go's client default minimum.
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
  // OpenSSL 3 calls a close without close_notify an error; to HTTP it is the
  // end of the stream (Content-Length or chunking says if the body is whole).
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif

  if (!tls.insecure_skip_verify) {
    int ok = tls.root_ca_file.empty()
                 ? SSL_CTX_set_default_verify_paths(ctx)
                 : SSL_CTX_load_verify_locations(ctx, tls.root_ca_file.c_str(), nullptr);
    if (ok != 1) {
      return tl::unexpected("tls: root CA file " + tls.root_ca_file + ": " +
                            openssl_error("cannot load"));
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  }
  if (!tls.cert_file.empty() || !tls.key_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1) {
      return tl::unexpected("tls: client certificate " + tls.cert_file + " / " + tls.key_file +
                            ": " + openssl_error("cannot load"));
    }
  }

  state->ssl.reset(SSL_new(ctx));
  if (!state->ssl) return tl::unexpected("tls: " + openssl_error("cannot create a session"));
  SSL* ssl = state->ssl.get();
  const std::string& name = tls.server_name.empty() ? host : tls.server_name;
  const bool ip = is_ip_literal(name);
  // SNI carries names only, as Go sends it.
  if (!ip) SSL_set_tlsext_host_name(ssl, name.c_str());
  if (!tls.insecure_skip_verify) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                : X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
    if (ok != 1) return tl::unexpected("tls: bad server name \"" + name + "\"");
  }
  SSL_set_fd(ssl, fd);

  SigpipeBlock no_sigpipe;
  for (;;) {
    int rc = SSL_connect(ssl);
    if (rc == 1) break;
    long verify = SSL_get_verify_result(ssl);
    if (verify != X509_V_OK) {
      ERR_clear_error();
      return tl::unexpected("TLS handshake with " + where + ": certificate verify failed: " +
                            X509_verify_cert_error_string(verify));
    }
    if (auto waited = state->wait(rc, "TLS handshake with", deadline); !waited) {
      return tl::unexpected(waited.error());
    }
  }
  return TlsSession(std::move(state));
}

tl::expected<void, std::string> TlsSession::send_all(std::string_view data,
                                                     Clock::time_point deadline) {
  ERR_clear_error();
  SigpipeBlock no_sigpipe;
  while (!data.empty()) {
    int n = SSL_write(state_->ssl.get(), data.data(), static_cast<int>(data.size()));
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (auto waited = state_->wait(n, "write", deadline); !waited) {
      return tl::unexpected(waited.error());
    }
  }
  return {};
}

tl::expected<std::size_t, std::string> TlsSession::recv(char* buf, std::size_t size,
                                                        Clock::time_point deadline) {
  ERR_clear_error();
  for (;;) {
    errno = 0;
    int n = SSL_read(state_->ssl.get(), buf, static_cast<int>(size));
    if (n > 0) return static_cast<std::size_t>(n);
    int err = SSL_get_error(state_->ssl.get(), n);
    // A clean close_notify, or a peer that just closed the socket (many
    // servers do after Connection: close): both end the stream, and the
    // response reader decides whether the response was complete.
    if (err == SSL_ERROR_ZERO_RETURN || (err == SSL_ERROR_SYSCALL && errno == 0)) {
      ERR_clear_error();
      return 0;
    }
    if (auto waited = state_->wait(n, "read", deadline); !waited) {
      return tl::unexpected(waited.error());
    }
  }
}

}  // namespace nsq::http::detail
