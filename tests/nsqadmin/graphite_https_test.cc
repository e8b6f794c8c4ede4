// nsqadmin with an https:// --graphite-url carrying user:password: a stand-in
// graphite serving HTTPS on loopback in the test (certificates from the
// openssl CLI), which records every request, so the test sees that
// nsqadmin's graphite calls (the rate API and the /render proxy) go over TLS
// with the --http-client-tls-* settings and send the URL's basic auth.
#include <gtest/gtest.h>

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "admin_server.h"
#include "integration/tls_certs.h"
#include "nsq/go_logger.h"
#include "nsq/http/client.h"
#include "nsq/http/server.h"
#include "testutil/http_client.h"

namespace nsq::admin {
namespace {

namespace ssl = boost::asio::ssl;

class NsqadminGraphiteHttpsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(pki_.ok()) << pki_.error(); }

  // Starts the HTTPS graphite; with `client_ca` it demands a client
  // certificate signed by that CA.
  void serve(const std::string& cert, const std::string& key, const std::string& client_ca = "") {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    ctx->use_certificate_chain_file(cert);
    ctx->use_private_key_file(key, ssl::context::pem);
    if (!client_ca.empty()) {
      ctx->load_verify_file(client_ca);
      ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
    }
    http::ServerOptions options;
    options.tls = ctx;
    graphite_ =
        std::make_unique<http::Server>(options, [this](http::Request req, http::ReplyFn reply) {
          {
            std::lock_guard lock(mu_);
            requests_.push_back(req);
          }
          http::Response r;
          if (req.query_value("format") == "json") {
            r.content_type = "application/json";
            r.body = R"([{"target":"x","datapoints":[[120.0,1700000000],[null,1700000060]]}])";
          } else {
            r.content_type = "image/png";
            r.body = "png bytes";
          }
          reply(std::move(r));
        });
    ASSERT_EQ(graphite_->listen("127.0.0.1:0"), "");
    graphite_->start();
  }

  Options options() const {
    Options o;
    o.http_address = "127.0.0.1:0";
    o.nsqd_http_addresses = {"127.0.0.1:1"};  // the graphite calls need no nsqd
    // A '@' escaped in the password, as Go's url.Parse reads it.
    o.graphite_url = "https://grafuser:s3cr%40t@127.0.0.1:" + std::to_string(graphite_->port());
    o.proxy_graphite = true;
    o.http_client_tls_root_ca_file = pki_.ca();
    return o;
  }

  std::vector<http::Request> taken() {
    std::lock_guard lock(mu_);
    return requests_;
  }

  integration::TestPki pki_;
  std::unique_ptr<http::Server> graphite_;
  std::mutex mu_;
  std::vector<http::Request> requests_;  // guarded by mu_
};

TEST_F(NsqadminGraphiteHttpsTest, RateAndProxyOverTlsWithBasicAuth) {
  serve(pki_.server_cert(), pki_.server_key());
  AdminServer admin(options(), make_go_logger("nsqadmin-h1", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(admin.start(), "");
  testutil::HttpClient client(admin.port());

  auto rate = client.request("GET", "/api/graphite?metric=rate&target=x");
  ASSERT_TRUE(rate);
  ASSERT_EQ(rate->status, 200) << rate->body;
  EXPECT_EQ(rate->body, R"({"rate":"2.00"})");  // 120 per 60 s

  auto img = client.request("GET", "/render?target=x&from=-1h");
  ASSERT_TRUE(img);
  EXPECT_EQ(img->status, 200);
  EXPECT_EQ(img->body, "png bytes");

  auto asked = taken();
  ASSERT_EQ(asked.size(), 2u);
  for (const auto& req : asked) {
    EXPECT_EQ(req.path, "/render");
    EXPECT_EQ(req.header("authorization").value_or(""), http::basic_auth("grafuser", "s3cr@t"));
    // The Host header is the authority without the user info, as Go sends it.
    EXPECT_EQ(req.header("host").value_or(""), "127.0.0.1:" + std::to_string(graphite_->port()));
  }
  EXPECT_EQ(asked[1].target, "/render?target=x&from=-1h");
  admin.stop();
}

TEST_F(NsqadminGraphiteHttpsTest, UntrustedGraphiteFailsUnlessSkipVerify) {
  serve(pki_.rogue_cert(), pki_.rogue_key());  // self-signed: the CA does not vouch for it
  {
    AdminServer admin(options(), make_go_logger("nsqadmin-h2", "[nsqadmin] ", GoLogLevel::fatal));
    ASSERT_EQ(admin.start(), "");
    testutil::HttpClient client(admin.port());
    auto rate = client.request("GET", "/api/graphite?metric=rate&target=x");
    ASSERT_TRUE(rate);
    EXPECT_EQ(rate->status, 500);
    EXPECT_EQ(rate->body, R"({"message":"INTERNAL_ERROR"})");
    auto img = client.request("GET", "/render?target=x");
    ASSERT_TRUE(img);
    EXPECT_EQ(img->status, 502);
    EXPECT_TRUE(taken().empty()) << "no request passed the handshake";
    admin.stop();
  }
  Options o = options();
  o.http_client_tls_insecure_skip_verify = true;
  AdminServer admin(o, make_go_logger("nsqadmin-h3", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(admin.start(), "");
  testutil::HttpClient client(admin.port());
  auto img = client.request("GET", "/render?target=x");
  ASSERT_TRUE(img);
  EXPECT_EQ(img->status, 200);
  EXPECT_EQ(taken().size(), 1u);
  admin.stop();
}

TEST_F(NsqadminGraphiteHttpsTest, ClientCertificateFromFlags) {
  serve(pki_.server_cert(), pki_.server_key(), pki_.ca());
  {
    AdminServer admin(options(), make_go_logger("nsqadmin-h4", "[nsqadmin] ", GoLogLevel::fatal));
    ASSERT_EQ(admin.start(), "");
    testutil::HttpClient client(admin.port());
    auto img = client.request("GET", "/render?target=x");
    ASSERT_TRUE(img);
    EXPECT_EQ(img->status, 502);  // graphite wants a certificate
    admin.stop();
  }
  Options o = options();
  o.http_client_tls_cert = pki_.client_cert();
  o.http_client_tls_key = pki_.client_key();
  AdminServer admin(o, make_go_logger("nsqadmin-h5", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(admin.start(), "");
  testutil::HttpClient client(admin.port());
  auto img = client.request("GET", "/render?target=x");
  ASSERT_TRUE(img);
  EXPECT_EQ(img->status, 200);
  admin.stop();
}

}  // namespace
}  // namespace nsq::admin
