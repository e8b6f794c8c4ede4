// nsq_to_http from our nsqd to an HTTP endpoint inside the test: GET with
// the escaped body in place of %s, POST with the content type and custom
// headers, a retry after a 500, --sample 0, the Go checks and exit codes;
// basic auth from the URL's user info and https endpoints checked against
// the system roots (SSL_CERT_FILE).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/tls_certs.h"
#include "nsq/http/server.h"
#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"
#include "testutil/tool_process.h"

namespace nsq::testutil {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string to_http_binary() { return tool_binary_path("nsq_to_http"); }

http::ServerOptions server_options(std::shared_ptr<boost::asio::ssl::context> tls) {
  http::ServerOptions options;
  options.tls = std::move(tls);
  return options;
}

// The endpoint: records every request; answers status_for(request number,
// from 0). With a `tls` context it serves https only.
class RecordingEndpoint {
 public:
  explicit RecordingEndpoint(
      std::function<int(std::size_t)> status_for = [](std::size_t) { return 200; },
      std::shared_ptr<boost::asio::ssl::context> tls = nullptr)
      : status_for_(std::move(status_for)),
        https_(tls != nullptr),
        server_(server_options(std::move(tls)), [this](http::Request request, http::ReplyFn reply) {
          http::Response response;
          {
            std::lock_guard lock(mu_);
            response.status = status_for_(requests_.size());
            requests_.push_back(std::move(request));
          }
          cv_.notify_all();
          reply(std::move(response));
        }) {}

  bool start() {
    if (!server_.listen("127.0.0.1:0").empty()) return false;
    server_.start();
    return true;
  }
  std::string authority() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  // `user_info` is put before the host as written, e.g. "user:pa%3Ass@".
  std::string url(const std::string& path, const std::string& user_info = "") const {
    return (https_ ? "https://" : "http://") + user_info + authority() + path;
  }
  bool wait_requests(std::size_t n, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
  }
  std::vector<http::Request> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  std::function<int(std::size_t)> status_for_;
  bool https_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<http::Request> requests_;  // guarded by mu_
  http::Server server_;                  // last: stopped before the rest goes
};

struct ChannelFigures {
  long long depth = -1;
  long long in_flight = -1;
  long long requeued = -1;
};

ChannelFigures channel_figures(int http_port, const std::string& topic,
                               const std::string& channel) {
  ChannelFigures out;
  auto reply = http_once(http_port, "GET", "/stats?format=json&topic=" + topic);
  if (!reply || reply->status != 200) return out;
  rapidjson::Document doc;
  doc.Parse(reply->body.c_str());
  if (doc.HasParseError() || !doc.HasMember("topics") || !doc["topics"].IsArray()) return out;
  for (const auto& t : doc["topics"].GetArray()) {
    for (const auto& c : t["channels"].GetArray()) {
      if (std::string(c["channel_name"].GetString()) != channel) continue;
      out.depth = c["depth"].GetInt64();
      out.in_flight = c["in_flight_count"].GetInt64();
      out.requeued = c["requeue_count"].GetInt64();
    }
  }
  return out;
}

class NsqToHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (to_http_binary().empty()) GTEST_SKIP() << "nsq_to_http not built";
    if (nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
    NsqdProcess::Options o;
    o.data_path = dir_.path();
    o.require_http = true;
    ASSERT_EQ(nsqd_.start(o), "");
  }

  std::string nsqd_tcp() const { return "127.0.0.1:" + std::to_string(nsqd_.tcp_port()); }

  void publish(const std::string& topic, const std::string& body) {
    auto reply = http_once(nsqd_.http_port(), "POST", "/pub?topic=" + topic, body);
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->status, 200) << reply->describe();
  }

  // Polls /stats until every message of the channel is answered.
  bool wait_drained(const std::string& topic, const std::string& channel) {
    auto deadline = Clock::now() + 30s;
    for (;;) {
      auto f = channel_figures(nsqd_.http_port(), topic, channel);
      if (f.depth == 0 && f.in_flight == 0) return true;
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(50ms);
    }
  }

  // Polls /stats until the channel has requeued at least n messages.
  bool wait_requeued(const std::string& topic, const std::string& channel, long long n) {
    auto deadline = Clock::now() + 30s;
    for (;;) {
      if (channel_figures(nsqd_.http_port(), topic, channel).requeued >= n) return true;
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(50ms);
    }
  }

  // Runs nsq_to_http on one message published to `topic`, with `args` after
  // the topic and nsqd flags, until the endpoint got it and nsqd has it FIN'd;
  // the requests the endpoint got.
  std::vector<http::Request> deliver_one(const std::string& topic, const std::string& body,
                                         RecordingEndpoint& endpoint,
                                         const std::vector<std::string>& args) {
    publish(topic, body);
    std::vector<std::string> all{"--topic=" + topic, "--nsqd-tcp-address=" + nsqd_tcp()};
    all.insert(all.end(), args.begin(), args.end());
    ToolProcess tool;
    EXPECT_EQ(tool.spawn(to_http_binary(), all), "");
    EXPECT_TRUE(endpoint.wait_requests(1, 15s)) << tool.stderr_text();
    EXPECT_TRUE(wait_drained(topic, "nsq_to_http"));
    stop(tool);
    return endpoint.requests();
  }

  void stop(ToolProcess& tool) {
    ASSERT_TRUE(tool.send_signal(SIGTERM));
    EXPECT_EQ(tool.wait_exit_code(40s), 0) << tool.stderr_text();
  }

  TempDir dir_;
  NsqdProcess nsqd_;
};

TEST_F(NsqToHttpTest, GetReplacesPercentSWithTheEscapedBody) {
  RecordingEndpoint endpoint;
  ASSERT_TRUE(endpoint.start());
  publish("gets", "hello world&x=1/é");
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_http_binary(), {"--topic=gets", "--nsqd-tcp-address=" + nsqd_tcp(),
                                          "--get=" + endpoint.url("/ping?data=%s&v=1")}),
            "");
  ASSERT_TRUE(endpoint.wait_requests(1, 15s)) << tool.stderr_text();
  EXPECT_TRUE(wait_drained("gets", "nsq_to_http"));
  auto requests = endpoint.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/ping?data=hello+world%26x%3D1%2F%C3%A9&v=1");
  EXPECT_EQ(requests[0].query_value("data").value_or(""), "hello world&x=1/é");
  EXPECT_EQ(requests[0].header("user-agent").value_or(""), "nsq_to_http v1.3.0");
  stop(tool);
}

TEST_F(NsqToHttpTest, PostSendsTheBodyWithContentTypeAndHeaders) {
  RecordingEndpoint endpoint;
  ASSERT_TRUE(endpoint.start());
  publish("posts", "{\"a\":1}");
  publish("posts", std::string("bin\0ary", 7));
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_http_binary(),
                       {"--topic=posts", "--channel=web", "--nsqd-tcp-address=" + nsqd_tcp(),
                        "--post=" + endpoint.url("/in"), "--content-type=application/json",
                        "--header=X-Token: abc ", "--header=User-Agent:custom"}),
            "");
  ASSERT_TRUE(endpoint.wait_requests(2, 15s)) << tool.stderr_text();
  EXPECT_TRUE(wait_drained("posts", "web"));
  std::vector<std::string> bodies;
  for (const auto& r : endpoint.requests()) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/in");
    EXPECT_EQ(r.header("content-type").value_or(""), "application/json");
    EXPECT_EQ(r.header("x-token").value_or(""), "abc");
    // --header comes last, so it may replace the tool's own User-Agent.
    EXPECT_EQ(r.header("user-agent").value_or(""), "custom");
    bodies.push_back(r.body);
  }
  std::sort(bodies.begin(), bodies.end());
  EXPECT_EQ(bodies, (std::vector<std::string>{std::string("bin\0ary", 7), "{\"a\":1}"}));
  stop(tool);
}

TEST_F(NsqToHttpTest, RetriesWhenTheServerAnswers500First) {
  RecordingEndpoint endpoint([](std::size_t n) { return n == 0 ? 500 : 200; });
  ASSERT_TRUE(endpoint.start());
  publish("retry", "try me");
  ToolProcess tool;
  // Short requeue delay and backoff so the retry comes quickly.
  ASSERT_EQ(tool.spawn(to_http_binary(), {"--topic=retry", "--nsqd-tcp-address=" + nsqd_tcp(),
                                          "--post=" + endpoint.url("/flaky"),
                                          "--consumer-opt=default_requeue_delay,100ms",
                                          "--consumer-opt=backoff_multiplier,100ms"}),
            "");
  ASSERT_TRUE(endpoint.wait_requests(2, 20s)) << tool.stderr_text();
  EXPECT_TRUE(wait_drained("retry", "nsq_to_http"));
  auto requests = endpoint.requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_EQ(requests[0].body, "try me");
  EXPECT_EQ(requests[1].body, "try me");
  EXPECT_EQ(channel_figures(nsqd_.http_port(), "retry", "nsq_to_http").requeued, 1);
  stop(tool);
  EXPECT_EQ(endpoint.requests().size(), 2u);
}

TEST_F(NsqToHttpTest, GetNeeds200) {
  // 201 is a success for POST but not for GET: the message is retried.
  RecordingEndpoint endpoint([](std::size_t n) { return n == 0 ? 201 : 200; });
  ASSERT_TRUE(endpoint.start());
  publish("get201", "x");
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_http_binary(), {"--topic=get201", "--nsqd-tcp-address=" + nsqd_tcp(),
                                          "--get=" + endpoint.url("/g?m=%s"),
                                          "--consumer-opt=default_requeue_delay,50ms",
                                          "--consumer-opt=backoff_multiplier,50ms"}),
            "");
  ASSERT_TRUE(endpoint.wait_requests(2, 20s)) << tool.stderr_text();
  EXPECT_TRUE(wait_drained("get201", "nsq_to_http"));
  stop(tool);
}

TEST_F(NsqToHttpTest, SampleZeroFinishesWithoutSending) {
  RecordingEndpoint endpoint;
  ASSERT_TRUE(endpoint.start());
  for (int i = 0; i < 5; ++i) publish("sampled", "m" + std::to_string(i));
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_http_binary(), {"--topic=sampled", "--nsqd-tcp-address=" + nsqd_tcp(),
                                          "--post=" + endpoint.url("/s"), "--sample=0"}),
            "");
  EXPECT_TRUE(wait_drained("sampled", "nsq_to_http"));
  stop(tool);
  EXPECT_TRUE(endpoint.requests().empty());
}

std::multiset<std::string> bodies_of(const std::vector<http::Request>& requests) {
  std::multiset<std::string> out;
  for (const auto& r : requests) out.insert(r.body);
  return out;
}

TEST_F(NsqToHttpTest, HostPoolMovesAwayFromAFailingEndpoint) {
  RecordingEndpoint broken([](std::size_t) { return 503; });
  RecordingEndpoint healthy;
  ASSERT_TRUE(broken.start() && healthy.start());
  std::multiset<std::string> expected;
  for (int i = 0; i < 10; ++i) {
    expected.insert("hp" + std::to_string(i));
    publish("pool", "hp" + std::to_string(i));
  }
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_http_binary(), {"--topic=pool", "--nsqd-tcp-address=" + nsqd_tcp(),
                                          "--post=" + broken.url("/"), "--post=" + healthy.url("/"),
                                          "--consumer-opt=default_requeue_delay,50ms",
                                          "--consumer-opt=backoff_multiplier,50ms"}),
            "");
  ASSERT_TRUE(healthy.wait_requests(10, 30s)) << tool.stderr_text();
  EXPECT_TRUE(wait_drained("pool", "nsq_to_http"));
  stop(tool);
  // Every message reached the healthy endpoint exactly once; the broken one
  // saw each at most once (it rests after failing).
  EXPECT_EQ(bodies_of(healthy.requests()), expected);
  auto broken_bodies = bodies_of(broken.requests());
  EXPECT_EQ(std::set<std::string>(broken_bodies.begin(), broken_bodies.end()).size(),
            broken_bodies.size());
}

TEST_F(NsqToHttpTest, UnknownModeSendsToEveryAddress) {
  RecordingEndpoint first;
  RecordingEndpoint second;
  ASSERT_TRUE(first.start() && second.start());
  publish("multi", "m1");
  publish("multi", "m2");
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_http_binary(),
                       {"--topic=multi", "--nsqd-tcp-address=" + nsqd_tcp(), "--mode=multicast",
                        "--post=" + first.url("/"), "--post=" + second.url("/")}),
            "");
  ASSERT_TRUE(first.wait_requests(2, 15s) && second.wait_requests(2, 15s)) << tool.stderr_text();
  EXPECT_TRUE(wait_drained("multi", "nsq_to_http"));
  stop(tool);
  EXPECT_EQ(bodies_of(first.requests()), (std::multiset<std::string>{"m1", "m2"}));
  EXPECT_EQ(bodies_of(second.requests()), (std::multiset<std::string>{"m1", "m2"}));
}

TEST_F(NsqToHttpTest, DiscoversNsqdThroughLookupd) {
  if (nsqlookupd_binary_path().empty()) GTEST_SKIP() << "nsqlookupd not built";
  NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  TempDir dir;
  NsqdProcess nsqd;
  NsqdProcess::Options o;
  o.data_path = dir.path();
  o.require_http = true;
  o.extra_args = {"--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd.tcp_port()),
                  "--broadcast-address=127.0.0.1"};
  ASSERT_EQ(nsqd.start(o), "");
  auto reply = http_once(nsqd.http_port(), "POST", "/pub?topic=found", "via lookupd");
  ASSERT_TRUE(reply && reply->status == 200);
  // Wait until nsqlookupd knows the topic's producer.
  auto deadline = Clock::now() + 10s;
  bool registered = false;
  while (!registered && Clock::now() < deadline) {
    auto r = http_once(lookupd.http_port(), "GET", "/lookup?topic=found");
    registered = r && r->status == 200 && r->body.find("\"tcp_port\"") != std::string::npos;
    if (!registered) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(registered);

  RecordingEndpoint endpoint;
  ASSERT_TRUE(endpoint.start());
  ToolProcess tool;
  ASSERT_EQ(tool.spawn(to_http_binary(),
                       {"--topic=found",
                        "--lookupd-http-address=127.0.0.1:" + std::to_string(lookupd.http_port()),
                        "--post=" + endpoint.url("/l")}),
            "");
  ASSERT_TRUE(endpoint.wait_requests(1, 15s)) << tool.stderr_text();
  EXPECT_EQ(endpoint.requests()[0].body, "via lookupd");
  stop(tool);
}

// Every value of header `name` (lower case), in the order received.
std::vector<std::string> header_values(const http::Request& request, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& [n, v] : request.headers) {
    if (n == name) out.push_back(v);
  }
  return out;
}

// base64("user:pa:ss"), written out so the check does not rely on the
// library's own encoder.
const std::string kUserPaSsAuth = "Basic dXNlcjpwYTpzcw==";

TEST_F(NsqToHttpTest, PostSendsTheUrlUserInfoAsBasicAuth) {
  RecordingEndpoint endpoint;
  ASSERT_TRUE(endpoint.start());
  // As Go's url.Parse, the user info is percent-decoded before it is
  // encoded: "%3A" is a ':' inside the password.
  auto requests = deliver_one("authpost", "secret body", endpoint,
                              {"--post=" + endpoint.url("/in", "user:pa%3Ass@")});
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(header_values(requests[0], "authorization"), std::vector<std::string>{kUserPaSsAuth});
  // The user info stays out of the Host header and the request target.
  EXPECT_EQ(requests[0].header("host").value_or(""), endpoint.authority());
  EXPECT_EQ(requests[0].target, "/in");
  EXPECT_EQ(requests[0].body, "secret body");
}

TEST_F(NsqToHttpTest, GetSendsTheUrlUserInfoAsBasicAuth) {
  RecordingEndpoint endpoint;
  ASSERT_TRUE(endpoint.start());
  // Go runs a --get address through fmt.Sprintf, so a '%' in the user info
  // is written "%%": "pa%%3Ass" becomes "pa%3Ass", i.e. the password "pa:ss".
  auto requests = deliver_one("authget", "hi there", endpoint,
                              {"--get=" + endpoint.url("/g?m=%s", "user:pa%%3Ass@")});
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(header_values(requests[0], "authorization"), std::vector<std::string>{kUserPaSsAuth});
  EXPECT_EQ(requests[0].header("host").value_or(""), endpoint.authority());
  EXPECT_EQ(requests[0].target, "/g?m=hi+there");
}

// Go's client adds the URL's basic auth only when the request has no
// Authorization header yet (net/http send()), and nsq_to_http sets --header
// values on the request first: the endpoint gets the --header one, alone.
TEST_F(NsqToHttpTest, HeaderAuthorizationWinsOverTheUrlUserInfo) {
  RecordingEndpoint endpoint;
  ASSERT_TRUE(endpoint.start());
  auto requests = deliver_one(
      "authboth", "x", endpoint,
      {"--post=" + endpoint.url("/in", "user:pa%3Ass@"), "--header=Authorization: Bearer tok"});
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(header_values(requests[0], "authorization"), std::vector<std::string>{"Bearer tok"});
}

// https endpoints, with certificates the openssl CLI makes for the test (a
// CA; a server certificate for 127.0.0.1 signed by it; a client certificate
// signed by it, for another name). nsq_to_http trusts the system roots, as
// Go's default client; OpenSSL's default verify paths honour SSL_CERT_FILE,
// so the tool runs under env(1) with it set or removed (ToolProcess hands the
// child the test's own environment and cannot add to it).
class NsqToHttpTlsTest : public NsqToHttpTest {
 protected:
  void SetUp() override {
    NsqToHttpTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(pki_.ok()) << pki_.error();
  }

  static std::shared_ptr<boost::asio::ssl::context> server_tls(const std::string& cert,
                                                               const std::string& key) {
    namespace ssl = boost::asio::ssl;
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    ctx->use_certificate_chain_file(cert);
    ctx->use_private_key_file(key, ssl::context::pem);
    return ctx;
  }

  // `env` is env(1)'s arguments before the command: NAME=value, -u NAME.
  static std::string spawn_with_env(ToolProcess& tool, std::vector<std::string> env,
                                    const std::vector<std::string>& args) {
    env.push_back(to_http_binary());
    env.insert(env.end(), args.begin(), args.end());
    return tool.spawn("/usr/bin/env", env);
  }

  integration::TestPki pki_;
};

const auto kAlways200 = [](std::size_t) { return 200; };

TEST_F(NsqToHttpTlsTest, HttpsEndpointTrustedThroughSslCertFileGetsTheMessage) {
  RecordingEndpoint endpoint(kAlways200, server_tls(pki_.server_cert(), pki_.server_key()));
  ASSERT_TRUE(endpoint.start());
  publish("tlsok", "over tls");
  ToolProcess tool;
  ASSERT_EQ(spawn_with_env(tool, {"SSL_CERT_FILE=" + pki_.ca()},
                           {"--topic=tlsok", "--nsqd-tcp-address=" + nsqd_tcp(),
                            "--post=" + endpoint.url("/tls")}),
            "");
  // The endpoint speaks TLS only: a request reaching it came over TLS.
  ASSERT_TRUE(endpoint.wait_requests(1, 15s)) << tool.stderr_text();
  EXPECT_TRUE(wait_drained("tlsok", "nsq_to_http"));
  stop(tool);
  auto requests = endpoint.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/tls");
  EXPECT_EQ(requests[0].body, "over tls");
  EXPECT_EQ(requests[0].header("host").value_or(""), endpoint.authority());
  EXPECT_EQ(channel_figures(nsqd_.http_port(), "tlsok", "nsq_to_http").requeued, 0);
}

TEST_F(NsqToHttpTlsTest, HttpsEndpointOutsideTheSystemRootsIsNotSentTo) {
  RecordingEndpoint endpoint(kAlways200, server_tls(pki_.server_cert(), pki_.server_key()));
  ASSERT_TRUE(endpoint.start());
  publish("tlsuntrusted", "keep me");
  ToolProcess tool;
  // The same server as above, but the test CA is not among the roots.
  ASSERT_EQ(spawn_with_env(tool, {"-u", "SSL_CERT_FILE", "-u", "SSL_CERT_DIR"},
                           {"--topic=tlsuntrusted", "--nsqd-tcp-address=" + nsqd_tcp(),
                            "--post=" + endpoint.url("/tls")}),
            "");
  EXPECT_TRUE(tool.wait_stderr("TLS handshake with " + endpoint.authority() +
                                   ": certificate verify failed: unable to get local issuer "
                                   "certificate",
                               15s))
      << tool.stderr_text();
  // Not delivered: the message goes back to nsqd (Go's default requeue delay
  // of 90 s keeps it from coming back during the test).
  EXPECT_TRUE(wait_requeued("tlsuntrusted", "nsq_to_http", 1));
  stop(tool);
  EXPECT_TRUE(endpoint.requests().empty());
  EXPECT_EQ(channel_figures(nsqd_.http_port(), "tlsuntrusted", "nsq_to_http").requeued, 1);
}

TEST_F(NsqToHttpTlsTest, HttpsCertificateForAnotherNameIsRejected) {
  // Signed by the trusted CA, but issued to "test-client", not 127.0.0.1: a
  // trusted chain alone is not enough, as in Go.
  RecordingEndpoint endpoint(kAlways200, server_tls(pki_.client_cert(), pki_.client_key()));
  ASSERT_TRUE(endpoint.start());
  publish("tlsname", "keep me");
  ToolProcess tool;
  ASSERT_EQ(spawn_with_env(tool, {"SSL_CERT_FILE=" + pki_.ca()},
                           {"--topic=tlsname", "--nsqd-tcp-address=" + nsqd_tcp(),
                            "--post=" + endpoint.url("/tls")}),
            "");
  EXPECT_TRUE(tool.wait_stderr("TLS handshake with " + endpoint.authority() +
                                   ": certificate verify failed: IP address mismatch",
                               15s))
      << tool.stderr_text();
  EXPECT_TRUE(wait_requeued("tlsname", "nsq_to_http", 1));
  stop(tool);
  EXPECT_TRUE(endpoint.requests().empty());
  EXPECT_EQ(channel_figures(nsqd_.http_port(), "tlsname", "nsq_to_http").requeued, 1);
}

TEST(NsqToHttpFlagsTest, GoChecksAndExitCodes) {
  if (to_http_binary().empty()) GTEST_SKIP() << "nsq_to_http not built";
  auto version = run_tool(to_http_binary(), {"--version"});
  EXPECT_EQ(version.exit_code, 0);
  // Go's line and the commit the build was made from.
  EXPECT_TRUE(std::regex_match(version.out, std::regex(R"(nsq_to_http v1\.3\.0 \(commit \w+\)\n)")))
      << version.out;

  const std::string src = "--nsqd-tcp-address=127.0.0.1:1";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "--topic and --channel are required"},
      {{"--topic=t", "--content-type=text/plain", src}, "--content-type only used with --post"},
      {{"--topic=t", "--post=http://h/", "--content-type=", src},
       "--content-type requires a value when used"},
      {{"--topic=t"}, "--nsqd-tcp-address or --lookupd-http-address required"},
      {{"--topic=t", src, "--lookupd-http-address=b:2"},
       "use --nsqd-tcp-address or --lookupd-http-address not both"},
      {{"--topic=t", src}, "--get or --post required"},
      {{"--topic=t", src, "--get=http://h/%s", "--post=http://h/"}, "use --get or --post not both"},
      {{"--topic=t", src, "--get=http://h/"}, "invalid GET address - must be a printf string"},
      {{"--topic=t", src, "--get=http://h/%s%s"}, "invalid GET address - must be a printf string"},
      {{"--topic=t", src, "--post=http://h/", "--sample=1.5"},
       "ERROR: --sample must be between 0.0 and 1.0"},
      {{"--topic=t", src, "--post=http://h/", "--header=nocolon"},
       "could not parse custom headers: Invalid header: \"nocolon\""},
  };
  for (const auto& c : cases) {
    auto r = run_tool(to_http_binary(), c.args);
    EXPECT_EQ(r.exit_code, 1) << c.message;
    EXPECT_NE(r.err.find(" " + c.message + "\n"), std::string::npos) << r.err;
  }

  auto bad = run_tool(to_http_binary(), {"--sample=lots"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("invalid value \"lots\" for flag -sample: parse error\n", 0), 0u)
      << bad.err;
  auto help = run_tool(to_http_binary(), {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.err.find("  -content-type string\n"), std::string::npos) << help.err;
  EXPECT_NE(help.err.find("(default \"application/octet-stream\")"), std::string::npos) << help.err;
}

}  // namespace
}  // namespace nsq::testutil
