// The nsqadmin server over a real socket: /ping, the UI page, the API, and
// a notification POSTed to --notification-http-endpoint for an action.
#include "admin_server.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "nsq/go_logger.h"
#include "nsq/http/server.h"
#include "static_assets.h"
#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"

namespace nsq::admin {
namespace {

using namespace std::chrono_literals;

class NsqadminServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testutil::nsqd_binary_path().empty()) GTEST_SKIP() << "nsqd not built";
    testutil::NsqdProcess::Options o;
    o.data_path = dir_.path();
    o.require_http = true;
    o.extra_args = {"--broadcast-address=127.0.0.1"};
    ASSERT_EQ(nsqd_.start(o), "");
  }
  std::string nsqd() const { return "127.0.0.1:" + std::to_string(nsqd_.http_port()); }

  testutil::TempDir dir_;
  testutil::NsqdProcess nsqd_;
};

TEST_F(NsqadminServerTest, ServesPingPageAndApi) {
  Options o;
  o.http_address = "127.0.0.1:0";
  o.nsqd_http_addresses = {nsqd()};
  AdminServer server(o, make_go_logger("nsqadmin-test", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(server.start(), "");
  testutil::HttpClient client(server.port());

  auto ping = client.request("GET", "/ping");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
  EXPECT_EQ(ping->body, "OK");

  auto page = client.request("GET", "/topics");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->header("content-type"), "text/html; charset=utf-8");
  if (ui_built()) {
    // The page carries nsqadmin's settings for the front end, and its bundle.
    EXPECT_NE(page->body.find("\"nsqd\":[\"" + nsqd() + "\"]"), std::string::npos) << page->body;
    auto js = client.request("GET", "/static/app.js");
    ASSERT_TRUE(js);
    EXPECT_EQ(js->status, 200);
    EXPECT_EQ(js->header("content-type"), "application/javascript; charset=utf-8");
    EXPECT_GT(js->body.size(), 1000u);
  } else {
    EXPECT_NE(page->body.find("the web UI is not built"), std::string::npos) << page->body;
  }
  auto missing = client.request("GET", "/static/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);

  auto topics = client.request("GET", "/api/topics");
  ASSERT_TRUE(topics);
  EXPECT_EQ(topics->status, 200);
  EXPECT_EQ(topics->header("x-nsq-content-type"), "nsq; version=1.0");
  EXPECT_EQ(topics->body, R"({"topics":null,"message":""})");
  server.stop();
}

TEST_F(NsqadminServerTest, PortInUseIsGoError) {
  Options o;
  o.http_address = "127.0.0.1:" + std::to_string(nsqd_.http_port());
  o.nsqd_http_addresses = {nsqd()};
  AdminServer server(o, make_go_logger("nsqadmin-test2", "[nsqadmin] ", GoLogLevel::fatal));
  EXPECT_EQ(server.start().rfind("listen (" + o.http_address + ") failed - ", 0), 0u);
}

// A receiver for notifications (an HTTP endpoint an operator would run).
struct Receiver {
  Receiver()
      : server({}, [this](http::Request req, http::ReplyFn reply) {
          {
            std::lock_guard lock(mu);
            bodies.push_back(req.body);
            content_types.push_back(req.header("content-type").value_or(""));
          }
          cv.notify_all();
          reply(http::Response{});
        }) {}
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 10s, [&] { return bodies.size() >= n; });
  }
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> bodies;         // guarded by mu
  std::vector<std::string> content_types;  // guarded by mu
  http::Server server;
};

TEST_F(NsqadminServerTest, ActionsAreNotified) {
  Receiver receiver;
  ASSERT_EQ(receiver.server.listen("127.0.0.1:0"), "");
  receiver.server.start();

  Options o;
  o.http_address = "127.0.0.1:0";
  o.nsqd_http_addresses = {nsqd()};
  o.notification_http_endpoint =
      "http://127.0.0.1:" + std::to_string(receiver.server.port()) + "/hook";
  AdminServer server(o, make_go_logger("nsqadmin-test3", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(server.start(), "");
  testutil::HttpClient client(server.port());
  auto created = client.request("POST", "/api/topics", R"({"topic":"t1","channel":"c1"})",
                                {{"X-Forwarded-User", "ops"}, {"User-Agent", "test-agent"}});
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;

  ASSERT_TRUE(receiver.wait_for(2));
  std::lock_guard lock(receiver.mu);
  EXPECT_EQ(receiver.content_types[0], "application/json");
  rapidjson::Document a;
  a.Parse(receiver.bodies[0].c_str());
  ASSERT_TRUE(a.IsObject()) << receiver.bodies[0];
  EXPECT_EQ(std::string(a["action"].GetString()), "create_topic");
  EXPECT_EQ(std::string(a["topic"].GetString()), "t1");
  EXPECT_FALSE(a.HasMember("channel"));
  EXPECT_EQ(std::string(a["user"].GetString()), "ops");
  EXPECT_EQ(std::string(a["user_agent"].GetString()), "test-agent");
  EXPECT_EQ(std::string(a["url"].GetString()),
            "http://127.0.0.1:" + std::to_string(server.port()) + "/api/topics");
  EXPECT_GT(a["timestamp"].GetInt64(), 0);
  rapidjson::Document b;
  b.Parse(receiver.bodies[1].c_str());
  EXPECT_EQ(std::string(b["action"].GetString()), "create_channel");
  EXPECT_EQ(std::string(b["channel"].GetString()), "c1");
  server.stop();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

TEST_F(NsqadminServerTest, DevStaticDirServesFilesFromDisk) {
  testutil::TempDir web;
  const std::string dir = web.path().string();
  write_file(dir + "/app.js", "console.log('dev build 1')");
  write_file(dir + "/index.html",
             "<html><!-- dev page --><base href=\"{{BASE_PATH}}\">"
             "<script type=\"application/json\">{{NSQADMIN_CONFIG}}</script></html>");
  Options o;
  o.http_address = "127.0.0.1:0";
  o.nsqd_http_addresses = {nsqd()};
  o.dev_static_dir = dir;
  AdminServer server(o, make_go_logger("nsqadmin-test4", "[nsqadmin] ", GoLogLevel::warn));
  ASSERT_EQ(server.start(), "");
  testutil::HttpClient client(server.port());

  auto js = client.request("GET", "/static/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->body, "console.log('dev build 1')");
  EXPECT_EQ(js->header("content-type"), "application/javascript; charset=utf-8");
  // Read at each request: a rebuilt bundle shows without a restart.
  write_file(dir + "/app.js", "console.log('dev build 2')");
  js = client.request("GET", "/static/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->body, "console.log('dev build 2')");

  auto page = client.request("GET", "/nodes");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<!-- dev page --><base href=\"/\">"), std::string::npos) << page->body;
  EXPECT_NE(page->body.find("\"graph_enabled\":false"), std::string::npos);

  for (const char* missing : {"/static/nope.js", "/static/..", "/static/%2E%2E"}) {
    auto r = client.request("GET", missing);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404) << missing;
  }
  // The embedded bundle is not what is served.
  if (auto embedded = find_asset("app.js")) {
    EXPECT_NE(js->body, std::string(embedded->data));
  }
  server.stop();
}

}  // namespace
}  // namespace nsq::admin
