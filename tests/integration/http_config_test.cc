// GET/PUT /config/:opt (http-api.md §3 /config).

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using HttpConfigTest = HttpTest;

// GET: strings raw, everything else JSON; unknown → 400 INVALID_OPTION.
TEST_F(HttpConfigTest, GetValues) {
  start_http({"--max-msg-size=12345", "--msg-timeout=90s"});
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(get("/config/tcp_address"), "127.0.0.1:0")) << "string values are raw";
  EXPECT_TRUE(is_v1_ok(get("/config/nsqlookupd_tcp_addresses"), "[]"));
  EXPECT_TRUE(is_v1_ok(get("/config/max_msg_size"), "12345"));
  EXPECT_TRUE(is_v1_ok(get("/config/msg_timeout"), "90000000000")) << "durations in ns";
  EXPECT_TRUE(is_v1_ok(get("/config/max_defer_timeout"), "3600000000000"))
      << "Go master's: --max-req-timeout's 1h while not given";
  EXPECT_TRUE(is_v1_ok(get("/config/log_level"), "2")) << "info = 2";
  EXPECT_TRUE(is_v1_ok(get("/config/snappy"), "true"));
  EXPECT_TRUE(is_v1_ok(get("/config/statsd_exclude_ephemeral"), "false"));
  EXPECT_TRUE(is_v1_ok(get("/config/data_path"), data_dir_.path().string()));
  auto r = get("/config/nsqlookupd_tcp_addresses");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-type"), kJsonType) << "non-string values are JSON";
  EXPECT_TRUE(is_v1_error(get("/config/nosuch"), 400, "INVALID_OPTION"));
  EXPECT_TRUE(is_v1_error(get("/config/lookupd_tcp_address"), 400, "INVALID_OPTION"))
      << "flag name, not key";
}

// PUT log_level: level names (any case) → its integer; GET reflects it.
TEST_F(HttpConfigTest, PutLogLevel) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/log_level", "debug"), "1"));
  EXPECT_TRUE(is_v1_ok(get("/config/log_level"), "1"));
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/log_level", "WARN"), "3"));
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/log_level", "Error"), "4"));
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/log_level", "fatal"), "5"));
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/log_level", "info"), "2"));
  EXPECT_TRUE(is_v1_error(req("PUT", "/config/log_level", "loud"), 400, "INVALID_VALUE"));
  EXPECT_TRUE(is_v1_error(req("PUT", "/config/log_level", ""), 413, "INVALID_VALUE"));
  EXPECT_TRUE(is_v1_ok(get("/config/log_level"), "2")) << "a rejected PUT changed the level";
}

// PUT log_level takes effect: no info line at log_level=error, info lines
// again after log_level=debug (a new TCP client is logged at info level).
TEST_F(HttpConfigTest, PutLogLevelTakesEffect) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(is_v1_ok(req("PUT", "/config/log_level", "error"), "4"));
  std::size_t mark = nsqd_->log().size();
  {
    auto c = consumer("t", "c", 1, R"({"client_id":"quiet"})");
    ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=t2"), ""));
  }
  // The disconnect is handled asynchronously: its exit line must be written
  // (at level error: not at all) before the level goes back to debug.
  ASSERT_TRUE(stats_eventually([&] {
    auto* ch = channel("t", "c");
    return ch && ch->HasMember("clients") && (*ch)["clients"].Size() == 0;
  }));
  ASSERT_TRUE(is_v1_ok(req("PUT", "/config/log_level", "debug"), "1"));
  std::string quiet = nsqd_->log().substr(mark);
  EXPECT_EQ(quiet.find("INFO"), std::string::npos) << "info lines at log_level=error:\n" << quiet;
  mark = nsqd_->log().size();
  auto c = consumer("t", "c", 1, R"({"client_id":"loud"})");
  auto deadline = std::chrono::steady_clock::now() + kReply;
  while (nsqd_->log().find("INFO", mark) == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  EXPECT_NE(nsqd_->log().find("INFO", mark), std::string::npos)
      << "no info line after log_level=debug:\n"
      << nsqd_->log();
}

// PUT nsqlookupd_tcp_addresses: a JSON array, returned as given; anything else 400 INVALID_VALUE.
TEST_F(HttpConfigTest, PutLookupdAddresses) {
  start_http({"--max-msg-size=64"});
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(
      is_v1_ok(req("PUT", "/config/nsqlookupd_tcp_addresses", R"(["127.0.0.1:1","127.0.0.1:2"])"),
               R"(["127.0.0.1:1","127.0.0.1:2"])"));
  EXPECT_TRUE(
      is_v1_ok(get("/config/nsqlookupd_tcp_addresses"), R"(["127.0.0.1:1","127.0.0.1:2"])"));
  EXPECT_TRUE(is_v1_error(req("PUT", "/config/nsqlookupd_tcp_addresses", "not json"), 400,
                          "INVALID_VALUE"));
  EXPECT_TRUE(
      is_v1_error(req("PUT", "/config/nsqlookupd_tcp_addresses", "[1,2]"), 400, "INVALID_VALUE"));
  EXPECT_TRUE(
      is_v1_error(req("PUT", "/config/nsqlookupd_tcp_addresses", ""), 413, "INVALID_VALUE"));
  EXPECT_TRUE(is_v1_error(
      req("PUT", "/config/nsqlookupd_tcp_addresses", "[\"" + std::string(70, 'x') + "\"]"), 413,
      "INVALID_VALUE"))
      << "body longer than max-msg-size";
  EXPECT_TRUE(
      is_v1_ok(get("/config/nsqlookupd_tcp_addresses"), R"(["127.0.0.1:1","127.0.0.1:2"])"));
  EXPECT_TRUE(is_v1_ok(req("PUT", "/config/nsqlookupd_tcp_addresses", "[]"), "[]"));
  EXPECT_TRUE(is_v1_ok(get("/config/nsqlookupd_tcp_addresses"), "[]"));
}

// PUT of any other option → 400 INVALID_OPTION.
TEST_F(HttpConfigTest, PutOtherOptionRejected) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  EXPECT_TRUE(is_v1_error(req("PUT", "/config/tcp_address", "127.0.0.1:1"), 400, "INVALID_OPTION"));
  EXPECT_TRUE(is_v1_error(req("PUT", "/config/max_msg_size", "10"), 400, "INVALID_OPTION"));
  EXPECT_TRUE(is_v1_error(req("PUT", "/config/nosuch", "x"), 400, "INVALID_OPTION"));
  EXPECT_TRUE(is_v1_ok(get("/config/tcp_address"), "127.0.0.1:0"));
  EXPECT_TRUE(is_v1_ok(get("/config/max_msg_size"), "1048576"));
}

}  // namespace
}  // namespace nsq::integration
