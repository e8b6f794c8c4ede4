// nsq::http::request over TLS: against our own nsq::http::Server serving
// HTTPS with a test PKI made by the openssl CLI (tests/integration/tls_certs.h):
// verified, untrusted, wrong name, skip-verify, client certificates, timeout.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "integration/tls_certs.h"
#include "nsq/http/client.h"
#include "nsq/http/server.h"

namespace nsq::http {
namespace {

using namespace std::chrono_literals;
namespace ssl = boost::asio::ssl;

class HttpsClient : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(pki_.ok()) << pki_.error(); }

  // An HTTPS server presenting `cert`/`key`; with `client_ca`, it demands a
  // client certificate signed by it.
  void serve(const std::string& cert, const std::string& key, const std::string& client_ca = "") {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    ctx->use_certificate_chain_file(cert);
    ctx->use_private_key_file(key, ssl::context::pem);
    if (!client_ca.empty()) {
      ctx->load_verify_file(client_ca);
      ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    ServerOptions options;
    options.tls = ctx;
    server_ = std::make_unique<Server>(options, [this](Request r, ReplyFn reply) {
      {
        std::lock_guard lock(mu_);
        seen_ = r;
      }
      Response resp;
      resp.status = 200;
      resp.body = "secure " + r.method + " " + r.target + " " + r.body;
      reply(std::move(resp));
    });
    ASSERT_EQ(server_->listen("127.0.0.1:0"), "");
    server_->start();
  }

  ClientRequest https_request() const {
    ClientRequest req;
    req.host = "127.0.0.1";
    req.port = server_->port();
    req.target = "/render?x=1";
    req.tls.enable = true;
    req.tls.root_ca_file = pki_.ca();
    return req;
  }

  Request seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

  integration::TestPki pki_;
  std::unique_ptr<Server> server_;
  std::mutex mu_;
  Request seen_;  // guarded by mu_
};

TEST_F(HttpsClient, VerifiedGetAndPost) {
  serve(pki_.server_cert(), pki_.server_key());
  auto resp = request(https_request());
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, "secure GET /render?x=1 ");

  auto post = https_request();
  post.method = "POST";
  post.body = std::string(100000, 'b');  // more than one TLS record each way
  post.headers = {{"Authorization", basic_auth("u", "p")}};
  resp = request(post);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->body, "secure POST /render?x=1 " + post.body);
  EXPECT_EQ(seen().header("authorization").value_or(""), "Basic dTpw");
}

TEST_F(HttpsClient, NameFromServerNameOrLocalhost) {
  serve(pki_.server_cert(), pki_.server_key());
  auto req = https_request();
  req.tls.server_name = "localhost";  // the certificate's DNS name, sent as SNI
  auto resp = request(req);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 200);
}

TEST_F(HttpsClient, UntrustedCertificateFails) {
  serve(pki_.rogue_cert(), pki_.rogue_key());  // self-signed
  auto resp = request(https_request());
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("TLS handshake with 127.0.0.1:"), std::string::npos) << resp.error();
  EXPECT_NE(resp.error().find("certificate verify failed"), std::string::npos) << resp.error();
  EXPECT_EQ(seen().method, "");  // no request reached the handler
}

TEST_F(HttpsClient, WrongNameFails) {
  serve(pki_.server_cert(), pki_.server_key());
  auto req = https_request();
  req.tls.server_name = "graphite.example";  // not in the certificate
  auto resp = request(req);
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("certificate verify failed"), std::string::npos) << resp.error();
}

TEST_F(HttpsClient, InsecureSkipVerifyAcceptsAnyCertificate) {
  serve(pki_.rogue_cert(), pki_.rogue_key());
  auto req = https_request();
  req.tls.root_ca_file.clear();
  req.tls.insecure_skip_verify = true;
  auto resp = request(req);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 200);
}

TEST_F(HttpsClient, ClientCertificateWhenTheServerDemandsOne) {
  serve(pki_.server_cert(), pki_.server_key(), pki_.ca());
  auto without = request(https_request());
  EXPECT_FALSE(without);  // the server ends the handshake (TLS 1.3: at the first read)

  auto req = https_request();
  req.tls.cert_file = pki_.client_cert();
  req.tls.key_file = pki_.client_key();
  auto resp = request(req);
  ASSERT_TRUE(resp) << resp.error();
  EXPECT_EQ(resp->status, 200);

  req.tls.key_file = pki_.rogue_key();  // not the certificate's key
  auto mismatched = request(req);
  ASSERT_FALSE(mismatched);
  EXPECT_NE(mismatched.error().find("tls: client certificate"), std::string::npos)
      << mismatched.error();
}

TEST_F(HttpsClient, BadRootCaFileIsAnError) {
  serve(pki_.server_cert(), pki_.server_key());
  auto req = https_request();
  req.tls.root_ca_file = pki_.file("missing.pem");
  auto resp = request(req);
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().find("tls: root CA file"), std::string::npos) << resp.error();
}

// The server refuses the body after a few MiB and closes while the client is
// still writing: the client's write fails with EPIPE. OpenSSL writes with
// write(), so without the client's own SIGPIPE handling this test process
// (default disposition, as a library user's) would be killed.
TEST_F(HttpsClient, ServerClosingMidRequestIsAnErrorNotSigpipe) {
  ASSERT_EQ(signal(SIGPIPE, SIG_DFL), SIG_DFL) << "the test needs SIGPIPE's default action";
  ServerOptions options;
  options.max_body_size = 1024;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->use_certificate_chain_file(pki_.server_cert());
  ctx->use_private_key_file(pki_.server_key(), ssl::context::pem);
  options.tls = ctx;
  server_ = std::make_unique<Server>(options, [](Request, ReplyFn reply) { reply(Response{}); });
  ASSERT_EQ(server_->listen("127.0.0.1:0"), "");
  server_->start();
  auto req = https_request();
  req.method = "POST";
  req.body = std::string(64 * 1024 * 1024, 'b');
  auto resp = request(req);
  // Either the server's early 413 is read, or the write fails; never a signal.
  if (resp) {
    EXPECT_EQ(resp->status, 413);
  } else {
    EXPECT_NE(resp.error().find("write"), std::string::npos) << resp.error();
  }
}

// A listener that never accepts: the kernel completes the TCP handshake, the
// TLS handshake gets no answer, and the request timeout ends it.
TEST(HttpsClientTimeout, SilentPeerTimesOut) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ClientRequest req;
  req.host = "127.0.0.1";
  req.port = ntohs(addr.sin_port);
  req.tls.enable = true;
  req.tls.insecure_skip_verify = true;
  req.request_timeout = 200ms;
  auto resp = request(req);
  ::close(fd);
  ASSERT_FALSE(resp);
  EXPECT_EQ(resp.error(),
            "TLS handshake with 127.0.0.1:" + std::to_string(req.port) + ": i/o timeout");
}

}  // namespace
}  // namespace nsq::http
