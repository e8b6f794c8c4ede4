// nsqlookupd's HTTP routing and its peers' IDENTIFY JSON, ours against Go
// nsqlookupd v1.3.0 (issue 17): the same bytes to both, the answers compared
// (see http_diff_test.cc).
#include <memory>
#include <string>
#include <vector>

#include "differential/diff_harness.h"
#include "testutil/nsqd_process.h"

namespace nsq::differential {

// http_diff_test.cc
std::string http_answer(int port, std::string_view bytes, const std::vector<int>& ports, ms quiet);

namespace {

class LookupdHttpDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    go_binary_ = testutil::reference_binary_path("nsqlookupd");
    if (go_binary_.empty()) {
      GTEST_SKIP() << "no reference Go nsqlookupd (../shared/reference/"
                      "go-nsq-v1.3.0-linux-amd64.tar.xz beside the checkout, or "
                      "NSQ_REFERENCE_DIR): differential test skipped";
    }
    for (auto* p : {&go_, &ours_}) {
      testutil::NsqlookupdProcess::Options o;
      o.binary = p == &go_ ? go_binary_ : std::string();
      std::string err = p->start(o);
      ASSERT_TRUE(err.empty()) << (p == &go_ ? "go" : "ours") << " nsqlookupd: " << err;
    }
  }

  void expect_same(std::string_view bytes, ms quiet = ms(1000)) {
    std::string theirs =
        http_answer(go_.http_port(), bytes, {go_.http_port(), go_.tcp_port()}, quiet);
    std::string mine =
        http_answer(ours_.http_port(), bytes, {ours_.http_port(), ours_.tcp_port()}, quiet);
    EXPECT_EQ(mine, theirs) << "ours (left) and Go's (right) differ for: " << printable(bytes);
  }

  void expect_same_request(const std::string& method, const std::string& target) {
    std::string req = method + " " + target + " HTTP/1.1\r\nHost: x\r\n";
    if (method != "GET" && method != "HEAD") req += "Content-Length: 0\r\n";
    expect_same(req + "\r\n");
  }

  std::string go_binary_;
  testutil::NsqlookupdProcess go_, ours_;
};

TEST_F(LookupdHttpDiff, RoutingRedirectsAndMethods) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"GET", "/ping"},
      {"GET", "/PING"},
      {"GET", "//ping"},
      {"GET", "/./ping"},
      {"GET", "/x/../ping"},
      {"GET", "/Info"},
      {"GET", "/ping/"},
      {"GET", "/debug/"},
      {"GET", "/debug/pprof/"},
      {"GET", "/debug/pprof/mutex"},
      {"GET", "/Topics?x=1"},
      {"GET", "/topics"},
      {"GET", "/nodes/"},
      {"GET", "/lookup"},
      {"GET", "/lookup?topic=nope"},
      {"GET", "/LOOKUP?topic=nope"},
      {"GET", "/channels"},
      {"GET", "/topic/create"},
      {"GET", "/topic/create/"},
      {"POST", "/topic/create/?topic=a"},
      {"POST", "//topic/create?topic=a"},
      {"POST", "/Topic/Create?topic=a"},
      {"POST", "/topic/create?topic=a"},
      {"POST", "/channel/create?topic=a&channel=b"},
      {"POST", "/ping"},
      {"POST", "/ping/"},
      {"PUT", "/topic/create"},
      {"DELETE", "/debug/pprof/symbol"},
      {"HEAD", "/ping"},
      {"HEAD", "/nope"},
      {"OPTIONS", "*"},
      {"OPTIONS", "/ping"},
      {"OPTIONS", "/topic/delete"},
      {"OPTIONS", "/debug/pprof/symbol"},
      {"OPTIONS", "/nope"},
      {"GET", "*"},
      {"GET", "/"},
      {"GET", "/nope"},
      {"GET", "/info"},
  };
  for (const auto& [method, target] : cases) {
    SCOPED_TRACE(method + " " + target);
    expect_same_request(method, target);
  }
}

TEST_F(LookupdHttpDiff, MalformedRequests) {
  for (std::string req : {
           "GET /ping HTTP/1.1\r\n\r\n",
           "GET /ping HTTP/2.0\r\nHost: x\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x y\r\n\r\n",
           "GET /ping HTTP/1.0\r\n\r\n",
           "GET /ping HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n",
       }) {
    SCOPED_TRACE(printable(req));
    expect_same(req);
  }
}

// A peer's IDENTIFY over TCP (V1) with what Go's encoding/json takes and
// RapidJSON alone would not: a lone surrogate escape, a number too big for
// a double under an unknown key (and under tcp_port, which both refuse).
// The answer is the peer info (the same on both but for the ports) or an error.
TEST_F(LookupdHttpDiff, IdentifyJsonAsGoDecodesIt) {
  auto verdict = [](const std::string& answer) {
    return answer.find("E_BAD_BODY") != std::string::npos    ? "E_BAD_BODY"
           : answer.find("\"version\"") != std::string::npos ? "peer info"
                                                             : "other: " + printable(answer);
  };
  const std::string base = R"("http_port":2,"version":"1","hostname":"h")";
  for (const std::string& json :
       std::vector<std::string>{R"({"tcp_port":1,"broadcast_address":"\ud800",)" + base + "}",
                                R"({"tcp_port":1,"broadcast_address":"b","x":1e999,)" + base + "}",
                                R"({"tcp_port":1,"broadcast_address":"b","x":-1e400,)" + base + "}",
                                R"({"tcp_port":1e999,"broadcast_address":"b",)" + base + "}",
                                R"({"tcp_port":1,"broadcast_address":"b",)" + base + "}"}) {
    SCOPED_TRACE(json);
    std::string bytes = "  V1IDENTIFY\n";
    bytes += be32(static_cast<std::uint32_t>(json.size())) + json;
    const std::string theirs = exchange(go_.tcp_port(), bytes, false, ms(500)).received;
    const std::string mine = exchange(ours_.tcp_port(), bytes, false, ms(500)).received;
    EXPECT_EQ(verdict(mine), verdict(theirs));
  }
}

}  // namespace
}  // namespace nsq::differential
