// The negotiated features from the client's side (tcp-protocol.md §6.1,
// §6.2): TLS (alone and with a compression), snappy, deflate, client
// certificates, and AUTH, each moving messages through our nsqd.
#include <set>

#include "client_harness.h"
#include "integration/tls_certs.h"
#include "nsq/client/consumer.h"
#include "nsq/client/producer.h"
#include "nsq/http/server.h"

namespace nsq::client::test {
namespace {

struct Features {
  bool tls = false;
  bool snappy = false;
  bool deflate = false;
};

class FeatureTest : public ::testing::TestWithParam<Features> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.ok()) << pki_.error();
    ASSERT_EQ(nsqd_.start({"--tls-cert=" + pki_.server_cert(), "--tls-key=" + pki_.server_key(),
                           "--https-address=127.0.0.1:0"}),
              "");
  }

  Config config(const Features& f) {
    Config c = fast_config();
    c.max_in_flight = 50;
    c.tls_v1 = f.tls;
    c.snappy = f.snappy;
    c.deflate = f.deflate;
    if (f.tls) c.tls_root_ca_file = pki_.ca();
    return c;
  }

  integration::TestPki pki_;
  RunningNsqd nsqd_;
};

TEST_P(FeatureTest, MovesEveryBodyIntact) {
  const Features f = GetParam();
  constexpr int kCount = 5000;
  std::vector<std::string> bodies;
  for (int i = 0; i < kCount; ++i)
    bodies.push_back("body-" + std::to_string(i) +
                     std::string(static_cast<std::size_t>(i % 300), 'z'));
  Seen seen;
  Consumer consumer("features", "ch", config(f));
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd_.tcp_address()));
  Producer producer(nsqd_.tcp_address(), config(f));
  for (int i = 0; i < kCount; i += 250) {
    auto r = producer.multi_publish(
        "features", std::vector<std::string>(bodies.begin() + i, bodies.begin() + i + 250));
    ASSERT_TRUE(r) << r.error() << "\n" << nsqd_.process.log();
  }
  auto single = producer.publish("features", "single");
  ASSERT_TRUE(single) << single.error();
  bodies.push_back("single");
  ASSERT_TRUE(seen.wait_count(bodies.size()));
  auto got = seen.bodies();
  EXPECT_EQ(std::multiset<std::string>(got.begin(), got.end()),
            std::multiset<std::string>(bodies.begin(), bodies.end()));
  // nsqd's view of the consumer agrees on what was negotiated.
  bool checked = false;
  nsqd_.for_channel("features", "ch", [&](const rapidjson::Value& ch) {
    for (const auto& cl : ch["clients"].GetArray()) {
      EXPECT_EQ(cl["tls"].GetBool(), f.tls);
      EXPECT_EQ(cl["snappy"].GetBool(), f.snappy);
      EXPECT_EQ(cl["deflate"].GetBool(), f.deflate);
      checked = true;
    }
  });
  EXPECT_TRUE(checked);
}

INSTANTIATE_TEST_SUITE_P(Client, FeatureTest,
                         ::testing::Values(Features{true, false, false},
                                           Features{false, true, false},
                                           Features{false, false, true},
                                           Features{true, true, false},
                                           Features{true, false, true}),
                         [](const auto& param_info) {
                           std::string name;
                           if (param_info.param.tls) name += "tls";
                           if (param_info.param.snappy) name += "snappy";
                           if (param_info.param.deflate) name += "deflate";
                           return name;
                         });

TEST(ClientTls, UnknownCertificateAuthorityIsRefused) {
  integration::TestPki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  RunningNsqd nsqd;
  ASSERT_EQ(nsqd.start({"--tls-cert=" + pki.server_cert(), "--tls-key=" + pki.server_key(),
                        "--https-address=127.0.0.1:0"}),
            "");
  Config c;
  c.tls_v1 = true;
  c.tls_root_ca_file = pki.rogue_cert();  // not the CA that signed nsqd's certificate
  Producer producer(nsqd.tcp_address(), c);
  auto r = producer.publish("t", "x");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("TLS handshake failed"), std::string::npos) << r.error();
  c.tls_root_ca_file.clear();
  c.tls_insecure_skip_verify = true;
  Producer trusting(nsqd.tcp_address(), c);
  EXPECT_TRUE(trusting.publish("t", "x")) << "tls_insecure_skip_verify skips the check";
}

TEST(ClientTls, ClientCertificateRequiredByNsqd) {
  integration::TestPki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  RunningNsqd nsqd;
  ASSERT_EQ(nsqd.start({"--tls-cert=" + pki.server_cert(), "--tls-key=" + pki.server_key(),
                        "--https-address=127.0.0.1:0", "--tls-root-ca-file=" + pki.ca(),
                        "--tls-client-auth-policy=require-verify", "--tls-required=true"}),
            "");
  Config c;
  c.tls_v1 = true;
  c.tls_root_ca_file = pki.ca();
  Producer anonymous(nsqd.tcp_address(), c);
  EXPECT_FALSE(anonymous.publish("t", "x"));
  c.tls_cert = pki.client_cert();
  c.tls_key = pki.client_key();
  Producer known(nsqd.tcp_address(), c);
  EXPECT_TRUE(known.publish("t", "x"));
  Config plain;
  Producer cleartext(nsqd.tcp_address(), plain);
  EXPECT_FALSE(cleartext.publish("t", "x")) << "--tls-required refuses a plain client";
}

// A one-secret auth server: "s3cret" may publish and subscribe to ^granted.
class AuthServer {
 public:
  AuthServer() {
    server_ = std::make_unique<http::Server>(
        http::ServerOptions{}, [](http::Request req, http::ReplyFn reply) {
          http::Response r;
          if (req.query_value("secret").value_or("") == "s3cret") {
            r.content_type = "application/json";
            r.body =
                R"({"ttl":3600,"identity":"client-test","authorizations":[)"
                R"({"topic":"^granted","channels":[".*"],"permissions":["subscribe","publish"]}]})";
          } else {
            r.status = 403;
            r.body = "{}";
          }
          reply(std::move(r));
        });
    EXPECT_EQ(server_->listen("127.0.0.1:0"), "");
    server_->start();
  }
  ~AuthServer() { server_->stop(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(server_->port()); }

 private:
  std::unique_ptr<http::Server> server_;
};

TEST(ClientAuth, SecretIsSentAndPermissionsApply) {
  AuthServer auth;
  RunningNsqd nsqd;
  ASSERT_EQ(nsqd.start({"--auth-http-address=" + auth.address()}), "");
  Config c = fast_config();
  Producer no_secret(nsqd.tcp_address(), c);
  auto refused = no_secret.publish("granted_topic", "x");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), "Auth Required");
  c.auth_secret = "wrong";
  Producer wrong(nsqd.tcp_address(), c);
  auto failed = wrong.publish("granted_topic", "x");
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().find("E_AUTH_FAILED"), std::string::npos) << failed.error();
  c.auth_secret = "s3cret";
  Producer producer(nsqd.tcp_address(), c);
  ASSERT_TRUE(producer.publish("granted_topic", "hello"));
  auto denied = producer.publish("other_topic", "x");
  ASSERT_FALSE(denied);
  EXPECT_NE(denied.error().find("E_UNAUTHORIZED"), std::string::npos) << denied.error();
  Seen seen;
  Consumer consumer("granted_topic", "ch", c);
  consumer.set_handler([&](Message& m) -> HandlerResult {
    seen.add(m.body(), m.attempts());
    return {};
  });
  ASSERT_TRUE(consumer.connect_to_nsqd(nsqd.tcp_address()));
  ASSERT_TRUE(seen.wait_count(1));
  EXPECT_EQ(seen.bodies(), (std::vector<std::string>{"hello"}));
}

}  // namespace
}  // namespace nsq::client::test
