// AUTH (tcp-protocol.md §6.2): an auth HTTP server inside the test grants
// one topic and denies another, expires a grant, answers with nothing, or is
// down; nsqd enforces PUB/MPUB/DPUB/SUB accordingly and keeps serving others.

#include <boost/asio/ssl/context.hpp>

#include <map>
#include <mutex>

#include "integration/feature_harness.h"
#include "integration/tls_certs.h"
#include "nsq/http/server.h"

namespace nsq::integration {
namespace {

// The auth server: answers per secret; records every query string.
class AuthServer {
 public:
  // `tls`: serve HTTPS with it. `redirect_to_https_port`: answer every
  // request with nsqd's 403 TLS_REQUIRED pointing there.
  explicit AuthServer(std::shared_ptr<boost::asio::ssl::context> tls = nullptr,
                      int redirect_to_https_port = 0) {
    http::ServerOptions options;
    options.tls = std::move(tls);
    server_ = std::make_unique<http::Server>(
        options, [this, redirect_to_https_port](http::Request req, http::ReplyFn reply) {
          http::Response r;
          std::lock_guard lock(mu_);
          queries_.push_back(req.raw_query);
          if (redirect_to_https_port != 0) {
            r.status = 403;
            r.body = "{\"message\": \"TLS_REQUIRED\", \"https_port\": " +
                     std::to_string(redirect_to_https_port) + "}";
            reply(std::move(r));
            return;
          }
          std::string secret = req.query_value("secret").value_or("");
          auto it = replies_.find(secret);
          if (req.path != "/auth" || it == replies_.end() || down_) {
            r.status = down_ ? 500 : 403;
            r.body = "{}";
          } else {
            r.content_type = "application/json";
            r.body = it->second;
          }
          reply(std::move(r));
        });
    EXPECT_EQ(server_->listen("127.0.0.1:0"), "");
    server_->start();
  }
  ~AuthServer() { server_->stop(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(server_->port()); }
  int port() const { return server_->port(); }
  void set(const std::string& secret, const std::string& json) {
    std::lock_guard lock(mu_);
    replies_[secret] = json;
  }
  void set_down(bool down) {
    std::lock_guard lock(mu_);
    down_ = down;
  }
  std::vector<std::string> queries() const {
    std::lock_guard lock(mu_);
    return queries_;
  }
  int count(const std::string& needle) const {
    int n = 0;
    for (const auto& q : queries()) n += q.find(needle) != std::string::npos;
    return n;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> replies_;  // guarded by mu_
  std::vector<std::string> queries_;            // guarded by mu_
  bool down_ = false;                           // guarded by mu_
  std::unique_ptr<http::Server> server_;
};

const char* kGrant = R"({"ttl":3600,"identity":"alice","identity_url":"http://id/alice",
  "authorizations":[{"topic":"^allowed","channels":[".*"],"permissions":["subscribe","publish"]},
                    {"topic":"^subonly$","channels":["^good$"],"permissions":["subscribe"]}]})";

class AuthTest : public NsqdTest {
 protected:
  void start_with_auth(std::vector<std::string> extra = {}) {
    auth_.set("good", kGrant);
    auth_.set("empty", R"({"ttl":60,"identity":"nobody","authorizations":[]})");
    auth_.set(
        "badperm",
        R"({"ttl":60,"authorizations":[{"topic":".*","channels":[".*"],"permissions":["admin"]}]})");
    std::vector<std::string> args = {"--auth-http-address=" + auth_.address()};
    args.insert(args.end(), extra.begin(), extra.end());
    start(args);
  }

  // IDENTIFY (checks auth_required), AUTH <secret>; returns the AUTH reply frame.
  std::optional<Frame> authed(FeatureClient& c, const std::string& secret) {
    std::string resp = connect_upgraded(c, port(), Upgrades{});
    EXPECT_NE(resp.find("\"auth_required\":true"), std::string::npos) << resp;
    c.send_command("AUTH\n", secret);
    return c.read_frame(kReply);
  }

  AuthServer auth_;
};

TEST_F(AuthTest, GrantedTopicAllowedOtherDenied) {
  start_with_auth();
  FeatureClient c;
  auto reply = authed(c, "good");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->data,
            R"({"identity":"alice","identity_url":"http://id/alice","permission_count":2})");
  EXPECT_EQ(auth_.queries().back(), "common_name=&remote_ip=127.0.0.1&secret=good&tls=false");

  c.send("PUB allowed_topic\n" + be32(2) + "hi");
  auto ok = c.read_frame(kReply);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->data, "OK");
  c.send("DPUB allowed_topic 10\n" + be32(2) + "hi");
  ok = c.read_frame(kReply);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->data, "OK");
  c.send("PUB denied_topic\n" + be32(2) + "hi");
  EXPECT_TRUE(fatal_error(c, R"(E_UNAUTHORIZED AUTH failed for PUB on "denied_topic" "")"));

  // Subscribe-only grant: SUB on the right channel, not publish, not others.
  FeatureClient s;
  ASSERT_TRUE(authed(s, "good"));
  EXPECT_TRUE(subscribe(s, "subonly", "good"));
  FeatureClient s2;
  ASSERT_TRUE(authed(s2, "good"));
  s2.send("SUB subonly bad\n");
  EXPECT_TRUE(fatal_error(s2, R"(E_UNAUTHORIZED AUTH failed for SUB on "subonly" "bad")"));
  FeatureClient p;
  ASSERT_TRUE(authed(p, "good"));
  // MPUB checks before reading the body.
  p.send("MPUB subonly\n");
  EXPECT_TRUE(fatal_error(p, R"(E_UNAUTHORIZED AUTH failed for MPUB on "subonly" "")"));
}

TEST_F(AuthTest, AuthFirstAndAlreadySet) {
  start_with_auth();
  FeatureClient c;
  ASSERT_TRUE(c.connect(port()));
  c.send("PUB allowed\n" + be32(1) + "x");
  EXPECT_TRUE(fatal_error(c, "E_AUTH_FIRST AUTH required before PUB"));
  FeatureClient s;
  ASSERT_TRUE(s.connect(port()));
  s.send("SUB allowed c\n");
  EXPECT_TRUE(fatal_error(s, "E_AUTH_FIRST AUTH required before SUB"));
  FeatureClient twice;
  ASSERT_TRUE(authed(twice, "good"));
  twice.send_command("AUTH\n", "good");
  EXPECT_TRUE(fatal_error(twice, "E_INVALID AUTH already set"));
}

TEST_F(AuthTest, RefusedSecrets) {
  start_with_auth();
  FeatureClient none;
  ASSERT_TRUE(authed(none, "empty"));  // the reply is the fatal error
  EXPECT_TRUE(none.wait_closed(kReply));
  FeatureClient unknown;
  auto r = authed(unknown, "nope");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "E_AUTH_FAILED AUTH failed");
  FeatureClient bad;
  r = authed(bad, "badperm");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "E_AUTH_FAILED AUTH failed");
  FeatureClient empty;
  r = authed(empty, "empty");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "E_UNAUTHORIZED AUTH no authorizations found");
}

TEST_F(AuthTest, DisabledWithoutAuthServer) {
  start();
  FeatureClient c;
  std::string resp = connect_upgraded(c, port(), Upgrades{});
  EXPECT_NE(resp.find("\"auth_required\":false"), std::string::npos) << resp;
  c.send_command("AUTH\n", "x");
  EXPECT_TRUE(fatal_error(c, "E_AUTH_DISABLED AUTH disabled"));
}

TEST_F(AuthTest, ExpiryRequeriesAndDownServerFails) {
  start_with_auth();
  auth_.set(
      "short",
      R"({"ttl":1,"identity":"bob","authorizations":[{"topic":".*","channels":[".*"],"permissions":["publish"]}]})");
  FeatureClient c;
  auto r = authed(c, "short");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->data[0], '{') << r->data;
  // Publish until the grant expired and nsqd asked again (ttl 1 s).
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (auth_.count("secret=short") < 2 && std::chrono::steady_clock::now() < deadline) {
    c.send("PUB any\n" + be32(1) + "x");
    auto ok = c.read_frame(kReply);
    ASSERT_TRUE(ok);
    ASSERT_EQ(ok->data, "OK");
  }
  ASSERT_EQ(auth_.count("secret=short"), 2);
  // Now the server goes down: once the grant expires again, PUB fails.
  auth_.set_down(true);
  deadline = std::chrono::steady_clock::now() + 10s;
  std::optional<Frame> last;
  while (std::chrono::steady_clock::now() < deadline) {
    c.send("PUB any\n" + be32(1) + "x");
    last = c.read_frame(kReply);
    if (!last || last->data != "OK") break;
  }
  ASSERT_TRUE(last);
  EXPECT_EQ(last->data, "E_AUTH_FAILED AUTH failed");
  EXPECT_TRUE(c.wait_closed(kReply));
  EXPECT_TRUE(nsqd_->wait_for_log("AUTH failed", kReply));
}

TEST_F(AuthTest, ServerDownGivesClearErrorAndOthersStillServed) {
  // Only the first address works; a second, closed port is tried in turn.
  start_with_auth({"--auth-http-address=127.0.0.1:1"});
  int failed = 0;
  for (int i = 0; i < 6; ++i) {  // random start index: both orders get tried
    FeatureClient c;
    auto r = authed(c, "good");
    ASSERT_TRUE(r);
    if (r->data[0] != '{') ++failed;
  }
  EXPECT_EQ(failed, 0) << "a down server must fall through to the next";

  auth_.set_down(true);
  FeatureClient c;
  auto r = authed(c, "good");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "E_AUTH_FAILED AUTH failed");
  EXPECT_TRUE(nsqd_->wait_for_log("failed auth against 127.0.0.1:1", kReply)) << tail(nsqd_->log());
  // Clients that need no new query keep working.
  auth_.set_down(false);
  FeatureClient ok;
  ASSERT_TRUE(authed(ok, "good"));
  ok.send("PUB allowed\n" + be32(1) + "x");
  auto f = ok.read_frame(kReply);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data, "OK");
}

TEST_F(AuthTest, TlsClientCertificateIsSentAsCommonName) {
  TestPki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  start_with_auth({"--tls-cert=" + pki.server_cert(), "--tls-key=" + pki.server_key(),
                   "--https-address=", "--tls-client-auth-policy=require-verify",
                   "--tls-root-ca-file=" + pki.ca()});
  Upgrades u;
  u.tls = true;
  u.tls_options.ca_file = pki.ca();
  u.tls_options.cert_file = pki.client_cert();
  u.tls_options.key_file = pki.client_key();
  FeatureClient c;
  std::string resp = connect_upgraded(c, port(), u);
  EXPECT_NE(resp.find("\"auth_required\":true"), std::string::npos) << resp;
  c.send_command("AUTH\n", "good");
  auto r = c.read_frame(kReply);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data[0], '{') << r->data;
  EXPECT_EQ(auth_.queries().back(),
            "common_name=test-client&remote_ip=127.0.0.1&secret=good&tls=true");
}

TEST_F(AuthTest, HttpsAuthServerAndTlsRequiredRedirect) {
  TestPki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  auto ctx = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
  ctx->use_certificate_chain_file(pki.server_cert());
  ctx->use_private_key_file(pki.server_key(), boost::asio::ssl::context::pem);
  AuthServer secure(ctx);
  secure.set("good", kGrant);
  AuthServer redirect(nullptr, secure.port());  // plain, answers 403 https_port
  start({"--auth-http-address=https://" + secure.address() + "/auth",
         "--auth-http-address=" + redirect.address(), "--tls-root-ca-file=" + pki.ca()});
  for (int i = 0; i < 6; ++i) {  // both addresses get tried first (random start)
    FeatureClient c;
    auto r = authed(c, "good");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->data[0], '{') << r->data << "\n" << tail(nsqd_->log());
  }
  EXPECT_EQ(secure.count("secret=good"), 6);  // each query ended at the HTTPS server
}

TEST_F(AuthTest, HttpsAuthServerWithUntrustedCertificateFails) {
  TestPki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  auto ctx = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
  ctx->use_certificate_chain_file(pki.rogue_cert());  // self-signed, CN rogue-client
  ctx->use_private_key_file(pki.rogue_key(), boost::asio::ssl::context::pem);
  AuthServer secure(ctx);
  secure.set("good", kGrant);
  start({"--auth-http-address=https://" + secure.address() + "/auth",
         "--tls-root-ca-file=" + pki.ca()});
  FeatureClient c;
  auto r = authed(c, "good");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->data, "E_AUTH_FAILED AUTH failed");
  EXPECT_TRUE(nsqd_->wait_for_log("TLS handshake with 127.0.0.1", kReply)) << tail(nsqd_->log());
}

}  // namespace
}  // namespace nsq::integration
