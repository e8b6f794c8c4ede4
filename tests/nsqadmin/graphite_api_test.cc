// nsqadmin with --graphite-url against a stand-in graphite: a real HTTP
// listener on loopback in the test answering the render API, which records
// every request so the test checks the targets nsqadmin asks for.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <mutex>
#include <string>
#include <vector>

#include "admin_server.h"
#include "graphite.h"
#include "nsq/go_logger.h"
#include "nsq/http/client.h"
#include "nsq/http/server.h"
#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"

namespace nsq::admin {
namespace {

// Graphite's render API, as far as nsqadmin uses it.
struct FakeGraphite {
  FakeGraphite()
      : server(http::ServerOptions{}, [this](http::Request req, http::ReplyFn reply) {
          http::Response r;
          {
            std::lock_guard lock(mu);
            requests.push_back(req);
            r.status = status;
            r.content_type = content_type;
            r.body = answer;
          }
          reply(std::move(r));
        }) {}
  std::string port_url() const { return "http://127.0.0.1:" + std::to_string(server.port()); }
  std::vector<http::Request> taken() {
    std::lock_guard lock(mu);
    return requests;
  }
  void set_answer(int s, std::string type, std::string body) {
    std::lock_guard lock(mu);
    status = s;
    content_type = std::move(type);
    answer = std::move(body);
  }

  std::mutex mu;
  std::vector<http::Request> requests;  // guarded by mu
  int status = 200;                     // guarded by mu
  std::string content_type = "application/json";
  std::string answer = "[]";
  http::Server server;
};

rapidjson::Document json(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  return doc;
}

class NsqadminGraphiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testutil::nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
    testutil::NsqdProcess::Options o;
    o.data_path = dir_.path();
    o.require_http = true;
    o.extra_args = {"--broadcast-address=127.0.0.1"};
    ASSERT_EQ(nsqd_.start(o), "");
    testutil::HttpClient nsqd(nsqd_.http_port());
    auto topic = nsqd.request("POST", "/topic/create?topic=orders");
    ASSERT_TRUE(topic && topic->status == 200);
    auto t = nsqd.request("POST", "/channel/create?topic=orders&channel=billing");
    ASSERT_TRUE(t && t->status == 200);
    ASSERT_EQ(graphite_.server.listen("127.0.0.1:0"), "");
    graphite_.server.start();
  }
  Options options() const {
    Options o;
    o.http_address = "127.0.0.1:0";
    o.nsqd_http_addresses = {"127.0.0.1:" + std::to_string(nsqd_.http_port())};
    return o;
  }

  testutil::TempDir dir_;
  testutil::NsqdProcess nsqd_;
  FakeGraphite graphite_;
};

TEST_F(NsqadminGraphiteTest, PagesCarryChartsAndApiGraphiteReadsTheRate) {
  Options o = options();
  o.graphite_url = graphite_.port_url();
  AdminServer admin(o, make_go_logger("nsqadmin-g1", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(admin.start(), "");
  testutil::HttpClient client(admin.port());

  const std::string rate_target =
      "sumSeries(stats.counters.nsq.*.topic.orders.message_count.count)";
  auto topic = client.request("GET", "/api/topics/orders");
  ASSERT_TRUE(topic && topic->status == 200);
  auto t = json(topic->body);
  ASSERT_TRUE(t.HasMember("graphite")) << topic->body;
  EXPECT_EQ(std::string(t["graphite"]["rate_target"].GetString()), rate_target);
  ASSERT_EQ(t["graphite"]["charts"].Size(), 2u);
  // By index: clang finds RapidJSON's iterator comparison ambiguous in C++20.
  for (rapidjson::SizeType i = 0; i < t["graphite"]["charts"].Size(); ++i) {
    const std::string url = t["graphite"]["charts"][i]["url"].GetString();
    EXPECT_EQ(url.rfind(graphite_.port_url() + "/render?", 0), 0u) << url;
  }

  auto channel = client.request("GET", "/api/topics/orders/billing");
  ASSERT_TRUE(channel && channel->status == 200);
  auto c = json(channel->body);
  EXPECT_EQ(std::string(c["graphite"]["rate_target"].GetString()),
            "sumSeries(stats.counters.nsq.*.topic.orders.channel.billing.message_count.count)");
  EXPECT_EQ(c["graphite"]["charts"].Size(), 6u);

  const std::string node = "127.0.0.1:" + std::to_string(nsqd_.http_port());
  auto n = client.request("GET", "/api/nodes/" + node);
  ASSERT_TRUE(n && n->status == 200) << (n ? n->body : "");
  EXPECT_EQ(std::string(json(n->body)["graphite"]["rate_target"].GetString()),
            "sumSeries(stats.counters.nsq.127_0_0_1_" + std::to_string(nsqd_.http_port()) +
                ".topic.*.message_count.count)");
  EXPECT_TRUE(graphite_.taken().empty()) << "the pages' JSON asks graphite nothing";

  // The rate: 300 messages counted in the last 60 s interval = 5.00/s.
  graphite_.set_answer(200, "application/json",
                       R"([{"target":"x","datapoints":[[300.0,1700000000],[null,1700000060]]}])");
  auto rate =
      client.request("GET", "/api/graphite?metric=rate&target=" + http::query_escape(rate_target));
  ASSERT_TRUE(rate);
  ASSERT_EQ(rate->status, 200) << rate->body;
  EXPECT_EQ(rate->body, R"({"rate":"5.00"})");
  auto asked = graphite_.taken();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].path, "/render");
  EXPECT_EQ(asked[0].query_value("target"), rate_target);
  EXPECT_EQ(asked[0].query_value("format"), "json");
  EXPECT_EQ(asked[0].query_value("from"), "-120sec");
  EXPECT_EQ(asked[0].query_value("until"), "-60sec");

  graphite_.set_answer(200, "application/json", R"([{"target":"x","datapoints":[[-1,1]]}])");
  rate = client.request("GET", "/api/graphite?metric=rate&target=x");
  ASSERT_TRUE(rate && rate->status == 200);
  EXPECT_EQ(rate->body, R"({"rate":"N/A"})");

  // Go's errors.
  graphite_.set_answer(500, "text/plain", "boom");
  rate = client.request("GET", "/api/graphite?metric=rate&target=x");
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->status, 500);
  EXPECT_EQ(rate->body, R"({"message":"INTERNAL_ERROR"})");
  rate = client.request("GET", "/api/graphite?metric=depth&target=x");
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->status, 400);
  EXPECT_EQ(rate->body, R"({"message":"INVALID_ARG_METRIC"})");
  rate = client.request("GET", "/api/graphite?metric=rate");
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->body, R"({"message":"INVALID_ARG_TARGET"})");
  // Without --proxy-graphite there is no /render here.
  auto render = client.request("GET", "/render?target=x");
  ASSERT_TRUE(render);
  EXPECT_EQ(render->status, 404);
  admin.stop();
}

TEST_F(NsqadminGraphiteTest, ProxyGraphitePassesRenderThrough) {
  Options o = options();
  o.graphite_url = graphite_.port_url();
  o.proxy_graphite = true;
  o.base_path = "/admin";
  AdminServer admin(o, make_go_logger("nsqadmin-g2", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(admin.start(), "");
  testutil::HttpClient client(admin.port());

  auto topic = client.request("GET", "/admin/api/topics/orders");
  ASSERT_TRUE(topic && topic->status == 200);
  auto t = json(topic->body);
  const std::string chart = t["graphite"]["charts"][0]["url"].GetString();
  ASSERT_EQ(chart.rfind("/admin/render?", 0), 0u) << chart;

  const std::string png("\x89PNG\r\n\x1a\n\0\0fake", 14);
  graphite_.set_answer(200, "image/png", png);
  auto img = client.request("GET", chart);
  ASSERT_TRUE(img);
  EXPECT_EQ(img->status, 200);
  EXPECT_EQ(img->header("content-type"), "image/png");
  EXPECT_EQ(img->body, png);
  auto asked = graphite_.taken();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].path, "/render");
  EXPECT_EQ("/admin" + asked[0].target, chart) << "the query goes to graphite unchanged";
  admin.stop();
}

TEST_F(NsqadminGraphiteTest, WithoutGraphiteUrlNoGraphsAndNoGraphiteCalls) {
  AdminServer admin(options(), make_go_logger("nsqadmin-g3", "[nsqadmin] ", GoLogLevel::fatal));
  ASSERT_EQ(admin.start(), "");
  testutil::HttpClient client(admin.port());
  auto topic = client.request("GET", "/api/topics/orders");
  ASSERT_TRUE(topic && topic->status == 200);
  EXPECT_FALSE(json(topic->body).HasMember("graphite")) << topic->body;
  auto channel = client.request("GET", "/api/topics/orders/billing");
  ASSERT_TRUE(channel && channel->status == 200);
  EXPECT_FALSE(json(channel->body).HasMember("graphite"));
  auto rate = client.request("GET", "/api/graphite?metric=rate&target=x");
  ASSERT_TRUE(rate);
  EXPECT_EQ(rate->status, 500);
  auto page = client.request("GET", "/topics/orders");
  ASSERT_TRUE(page && page->status == 200);
  EXPECT_NE(page->body.find(R"("graph_enabled":false)"), std::string::npos);
  EXPECT_TRUE(graphite_.taken().empty());
  admin.stop();
}

}  // namespace
}  // namespace nsq::admin
