// HTTP API basics over real sockets (http-api.md §1, §3 /ping, /info), the
// connection handling of the listener (keep-alive, Connection: close, a slow
// client), and /metrics (beyond Go).

#include <unistd.h>

#include <ctime>

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using Clock = std::chrono::steady_clock;
using HttpBasicTest = HttpTest;

// §3 GET /ping: 200 "OK", plain text, no X-NSQ-Content-Type.
TEST_F(HttpBasicTest, PingIsPlainOk) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto r = get("/ping");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->describe();
  EXPECT_EQ(r->body, "OK");
  EXPECT_FALSE(r->has_header("x-nsq-content-type")) << r->describe();
}

// §2 debug endpoints: Go's runtime knobs keep their contract; Go profiles do not exist.
TEST_F(HttpBasicTest, DebugEndpoints) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  // Go's freememory handler frees memory and then panics rendering its empty
  // answer: 500 INTERNAL_ERROR, here too.
  auto r = post("/debug/freememory", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500) << r->describe();
  EXPECT_EQ(r->body, "{\"message\":\"INTERNAL_ERROR\"}") << r->describe();
  r = req("PUT", "/debug/setblockrate?rate=x");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->describe();
  EXPECT_NE(r->body.find("invalid block rate"), std::string::npos) << r->describe();
  r = req("PUT", "/debug/setblockrate?rate=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->describe();
  r = get("/debug/pprof/heap");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 501) << r->describe();
}

// §3 GET /info: keys in order, actual ports, durations in nanoseconds.
TEST_F(HttpBasicTest, InfoKeysInOrderWithActualPorts) {
  start_http({"--broadcast-address=bcast.example", "--max-heartbeat-interval=45s"});
  if (IsSkipped() || HasFatalFailure()) return;
  auto r = get("/info");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->describe();
  EXPECT_EQ(r->header("x-nsq-content-type"), kV1Header) << r->describe();
  EXPECT_EQ(r->header("content-type"), kJsonType) << r->describe();
  rapidjson::Document d;
  ASSERT_FALSE(d.Parse(r->body.c_str()).HasParseError()) << r->body;
  EXPECT_EQ(
      join(keys_of(d)),
      "version,broadcast_address,hostname,http_port,tcp_port,start_time,max_heartbeat_interval,"
      "max_output_buffer_size,max_output_buffer_timeout,max_deflate_level")
      << r->body;
  EXPECT_STREQ(d["version"].GetString(), "1.3.0");
  EXPECT_STREQ(d["broadcast_address"].GetString(), "bcast.example");
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  EXPECT_STREQ(d["hostname"].GetString(), host);
  EXPECT_EQ(int_of(d, "http_port"), http_port());
  EXPECT_EQ(int_of(d, "tcp_port"), port());
  // system_clock, not time(): glibc's time() reads a coarse clock that can lag a few ms.
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  EXPECT_LE(int_of(d, "start_time"), now);
  EXPECT_GE(int_of(d, "start_time"), now - 60);
  EXPECT_EQ(int_of(d, "max_heartbeat_interval"), 45'000'000'000);
  EXPECT_EQ(int_of(d, "max_output_buffer_size"), 65536);
  EXPECT_EQ(int_of(d, "max_output_buffer_timeout"), 30'000'000'000);
  EXPECT_EQ(int_of(d, "max_deflate_level"), 6);
  // Compact JSON.
  EXPECT_EQ(r->body.find(": "), std::string::npos) << r->body;
}

// §1: unknown path → 404 NOT_FOUND (V1 error), whatever the method.
TEST_F(HttpBasicTest, UnknownPathIs404) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(get("/nope"), 404, "NOT_FOUND"));
  EXPECT_TRUE(is_v1_error(post("/nope"), 404, "NOT_FOUND"));
  EXPECT_TRUE(is_v1_error(get("/topic/nope?topic=t"), 404, "NOT_FOUND"));
  // No pre-1.0 aliases (§2).
  EXPECT_TRUE(is_v1_error(post("/put?topic=t", "x"), 404, "NOT_FOUND"));
  EXPECT_TRUE(is_v1_error(post("/create_topic?topic=t"), 404, "NOT_FOUND"));
}

// §1: known path, wrong method → 405 METHOD_NOT_ALLOWED.
TEST_F(HttpBasicTest, WrongMethodIs405) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(get("/pub?topic=t"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(is_v1_error(get("/mpub?topic=t"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(is_v1_error(post("/info"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(is_v1_error(req("PUT", "/stats", "x"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(is_v1_error(get("/topic/create?topic=t"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(
      is_v1_error(req("DELETE", "/channel/delete?topic=t&channel=c"), 405, "METHOD_NOT_ALLOWED"));
  EXPECT_TRUE(is_v1_error(post("/config/log_level", "debug"), 405, "METHOD_NOT_ALLOWED"));
  // The wrong method did nothing.
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("t"), nullptr) << stats_body_;
}

// §1 (Go router): a path with an extra or missing trailing slash is
// redirected to the registered form (301 for GET, 307/308 otherwise); OPTIONS
// answers with an Allow header.
TEST_F(HttpBasicTest, RouterRedirectsAndOptions) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto r = get("/ping/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 301) << r->describe();
  EXPECT_EQ(r->header("location"), "/ping") << r->describe();
  r = get("/debug/pprof");
  ASSERT_TRUE(r);
  if (r->status != 404) {
    EXPECT_EQ(r->status, 301) << r->describe();
    EXPECT_EQ(r->header("location"), "/debug/pprof/") << r->describe();
  }
  r = post("/pub/?topic=t", "x");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->status == 307 || r->status == 308) << r->describe();
  EXPECT_EQ(r->header("location").value_or("").rfind("/pub", 0), 0u) << r->describe();
  r = req("OPTIONS", "/pub");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->describe();
  EXPECT_NE(r->header("allow").value_or("").find("POST"), std::string::npos) << r->describe();
}

// §1: a query string that fails to parse → 400 INVALID_REQUEST.
TEST_F(HttpBasicTest, BadQueryIs400) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(get("/stats?format=json&%zz"), 400, "INVALID_REQUEST"));
  EXPECT_TRUE(is_v1_error(post("/pub?topic=t&x=%zz", "body"), 400, "INVALID_REQUEST"));
  EXPECT_TRUE(is_v1_error(post("/mpub?topic=t&%zz", "body"), 400, "INVALID_REQUEST"));
  EXPECT_TRUE(is_v1_error(post("/topic/create?topic=%zz"), 400, "INVALID_REQUEST"));
  EXPECT_TRUE(is_v1_error(post("/channel/create?topic=t&channel=%zz"), 400, "INVALID_REQUEST"));
  // §3 /pub: body checks come before the query ones.
  EXPECT_TRUE(is_v1_error(post("/pub?%zz"), 400, "MSG_EMPTY"));
  ASSERT_TRUE(stats());
  EXPECT_EQ(topic("t"), nullptr) << "a rejected request created the topic: " << stats_body_;
}

// Several requests on one keep-alive connection.
TEST_F(HttpBasicTest, KeepAliveServesSeveralRequests) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  HttpClient c(http_port());
  for (int i = 0; i < 3; ++i) {
    auto r = c.request("GET", "/ping");
    ASSERT_TRUE(r) << c.last_error();
    EXPECT_EQ(r->body, "OK");
    EXPECT_FALSE(r->connection_close);
    EXPECT_TRUE(is_v1_ok(c.request("POST", "/pub?topic=ka", "m" + std::to_string(i)), "OK"));
  }
  EXPECT_TRUE(is_v1_error(c.request("GET", "/nope"), 404, "NOT_FOUND"));
  auto r = c.request("GET", "/stats?format=json&topic=ka");
  ASSERT_TRUE(r) << c.last_error();
  EXPECT_NE(r->body.find(R"("message_count":3)"), std::string::npos) << r->body;
  r = c.request("GET", "/info");
  ASSERT_TRUE(r) << c.last_error();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(c.connects(), 1) << "the server closed a keep-alive connection";

  // Pipelined: two requests sent at once, answered in order.
  ASSERT_TRUE(
      c.send_raw("GET /ping HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto a = c.read_response();
  auto b = c.read_response();
  ASSERT_TRUE(a && b) << c.last_error();
  EXPECT_EQ(a->status, 200);
  EXPECT_EQ(a->body, "OK");
  EXPECT_TRUE(is_v1_error(b, 404, "NOT_FOUND"));
}

// `Connection: close` from the client: answered, then the server closes.
TEST_F(HttpBasicTest, ConnectionCloseHonoured) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  HttpClient c(http_port());
  ASSERT_TRUE(c.connect());
  ASSERT_TRUE(c.send_raw("GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  auto r = c.read_response();
  ASSERT_TRUE(r) << c.last_error();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "OK");
  if (c.connected()) {
    EXPECT_TRUE(c.wait_closed(kReply)) << "server kept the connection after Connection: close";
  }
  // HTTP/1.0 without keep-alive: same.
  ASSERT_TRUE(c.connect());
  ASSERT_TRUE(c.send_raw("GET /info HTTP/1.0\r\n\r\n"));
  r = c.read_response();
  ASSERT_TRUE(r) << c.last_error();
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find(R"("version":"1.3.0")"), std::string::npos) << r->body;
  if (c.connected()) {
    EXPECT_TRUE(c.wait_closed(kReply)) << "server kept an HTTP/1.0 connection open";
  }
}

// A client that sends its request head one byte every 100 ms does not delay
// other clients (each /ping answered within 1 s), and nsqd survives it.
TEST_F(HttpBasicTest, SlowClientDoesNotBlockOthers) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  std::atomic<bool> stop{false};
  std::atomic<int> sent{0};
  std::thread slow([&] {
    HttpClient s(http_port(), 1000ms);
    if (!s.connect()) return;
    const std::string head =
        "GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + std::string(200, 'a');
    for (char ch : head) {
      if (stop) break;
      if (!s.send_raw(std::string(1, ch))) break;
      ++sent;
      std::this_thread::sleep_for(100ms);  // the slowness under test, not synchronisation
    }
  });
  // Wait until the slow client is under way.
  auto deadline = Clock::now() + kReply;
  while (sent < 3 && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    auto r = testutil::http_once(http_port(), "GET", "/ping", {}, {}, 1000ms);
    auto took = Clock::now() - t0;
    ASSERT_TRUE(r) << "no /ping reply within 1 s while a slow client is connected";
    EXPECT_EQ(r->body, "OK");
    EXPECT_LT(took, 1000ms);
    std::this_thread::sleep_for(200ms);  // spread the pings over the slow client's life
  }
  stop = true;
  slow.join();
  EXPECT_GE(sent.load(), 5);
  EXPECT_TRUE(nsqd_->alive());
  EXPECT_EQ(testutil::http_once(http_port(), "GET", "/ping")->body, "OK");
}

// Several connections open at once, each used for several requests.
TEST_F(HttpBasicTest, ConcurrentClients) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      HttpClient c(http_port());
      for (int i = 0; i < 25; ++i) {
        auto r =
            c.request("POST", "/pub?topic=conc", "t" + std::to_string(t) + "-" + std::to_string(i));
        if (r && r->status == 200 && r->body == "OK") ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 100);
  EXPECT_EQ(topic_stat("conc", "message_count"), 100);
}

// /metrics (beyond Go): Prometheus text exposition with a sample for a topic.
TEST_F(HttpBasicTest, MetricsExposition) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=metrics_topic"), ""));
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=metrics_topic", "x"), "OK"));
  auto r = get("/metrics");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->describe();
  EXPECT_NE(r->body.find("# TYPE "), std::string::npos) << r->body;
  bool sample = false;
  std::size_t pos = 0;
  while (pos < r->body.size()) {
    auto eol = r->body.find('\n', pos);
    if (eol == std::string::npos) eol = r->body.size();
    std::string line = r->body.substr(pos, eol - pos);
    if (!line.empty() && line[0] != '#' && line.find("metrics_topic") != std::string::npos)
      sample = true;
    pos = eol + 1;
  }
  EXPECT_TRUE(sample) << "no sample line for metrics_topic:\n" << r->body;
}

}  // namespace
}  // namespace nsq::integration
