// nsqadmin's API handlers (Api::handle, in process) against a real cluster
// started by the test: one nsqlookupd and two nsqd registered to it, on
// loopback ephemeral ports. Plus an nsqd that cannot be reached.
#include "api.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cluster_info.h"
#include "history.h"
#include "history_poller.h"
#include "options.h"
#include "static_assets.h"
#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"

namespace nsq::admin {
namespace {

using namespace std::chrono_literals;
using testutil::http_once;

// Polls cond until it holds or the deadline passes (registration with
// lookupd is asynchronous: there is no event to wait on but its API).
bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return cond();
}

// A loopback port nothing listens on: bound, then closed.
int dead_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

rapidjson::Document json(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  return doc;
}

std::string str(const rapidjson::Value& v, const char* key) {
  return v.HasMember(key) && v[key].IsString() ? v[key].GetString() : "<missing>";
}

http::Request request(const std::string& method, const std::string& path,
                      const std::string& body = "", const std::string& raw_query = "") {
  http::Request r;
  r.method = method;
  r.path = path;
  r.target = raw_query.empty() ? path : path + "?" + raw_query;
  r.raw_query = raw_query;
  if (raw_query == "inactive=true") r.query = {{"inactive", "true"}};
  r.body = body;
  r.remote_address = "127.0.0.1:1234";
  r.headers = {{"host", "admin.test"}, {"user-agent", "api_test"}};
  return r;
}

// One in-process nsqadmin API over some options.
struct Admin {
  explicit Admin(Options o)
      : options(normalized(std::move(o))),
        cluster(UpstreamTimeouts{1000ms, 3000ms, {}}, nullptr),
        api(&options, &cluster, nullptr, nullptr) {}
  static Options normalized(Options o) {
    o.base_path = normalize_base_path(o.base_path);
    return o;
  }
  http::Response call(const std::string& method, const std::string& path,
                      const std::string& body = "", const std::string& query = "") const {
    return api.handle(request(method, path, body, query));
  }
  Options options;
  ClusterInfo cluster;
  Api api;
};

class NsqadminApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testutil::nsqd_binary_path().empty() || testutil::nsqlookupd_binary_path().empty()) {
      GTEST_SKIP() << "nsqd or nsqlookupd not built";
    }
    ASSERT_EQ(lookupd_.start({}), "");
    for (int i = 0; i < 2; ++i) {
      testutil::NsqdProcess::Options o;
      o.data_path = dirs_[i].path();
      o.require_http = true;
      o.extra_args = {"--broadcast-address=127.0.0.1",
                      "--lookupd-tcp-address=127.0.0.1:" + std::to_string(lookupd_.tcp_port())};
      ASSERT_EQ(nsqd_[i].start(o), "");
    }
    ASSERT_TRUE(eventually([&] {
      auto r = http_once(lookupd_.http_port(), "GET", "/nodes");
      return r && json(r->body)["producers"].Size() == 2;
    })) << "both nsqd registered with lookupd";
  }

  std::string node(int i) const { return "127.0.0.1:" + std::to_string(nsqd_[i].http_port()); }
  std::string lookupd() const { return "127.0.0.1:" + std::to_string(lookupd_.http_port()); }

  void publish(int i, const std::string& topic, int n) {
    std::string body;
    for (int k = 0; k < n; ++k) body += "m" + std::to_string(k) + "\n";
    auto r = http_once(nsqd_[i].http_port(), "POST", "/mpub?topic=" + topic, body);
    ASSERT_TRUE(r && r->status == 200);
  }
  // nsqd creates a channel only in an existing topic.
  void create_channel(int i, const std::string& topic, const std::string& channel) {
    auto t = http_once(nsqd_[i].http_port(), "POST", "/topic/create?topic=" + topic);
    ASSERT_TRUE(t && t->status == 200);
    auto r = http_once(nsqd_[i].http_port(), "POST",
                       "/channel/create?topic=" + topic + "&channel=" + channel);
    ASSERT_TRUE(r && r->status == 200);
  }
  // Waits until lookupd lists `count` producers of topic.
  void await_producers(const std::string& topic, unsigned count) {
    ASSERT_TRUE(eventually([&] {
      auto r = http_once(lookupd_.http_port(), "GET", "/lookup?topic=" + topic);
      return r && r->status == 200 && json(r->body)["producers"].Size() == count;
    })) << topic;
  }
  // Every nsqd has identified itself to lookupd (it connects at start, on
  // its own thread: a test may be faster).
  void await_nodes(unsigned count) {
    ASSERT_TRUE(eventually([&] {
      auto r = http_once(lookupd_.http_port(), "GET", "/nodes");
      return r && r->status == 200 && json(r->body)["producers"].Size() == count;
    }));
  }
  // The nsqd's own /stats JSON of one topic.
  rapidjson::Document nsqd_topic(int i, const std::string& topic) {
    auto r = http_once(nsqd_[i].http_port(), "GET", "/stats?format=json&topic=" + topic);
    return json(r ? r->body : "{}");
  }

  Options lookupd_options() const {
    Options o;
    o.lookupd_http_addresses = {lookupd()};
    return o;
  }

  testutil::NsqlookupdProcess lookupd_;
  testutil::TempDir dirs_[2];
  testutil::NsqdProcess nsqd_[2];
};

TEST_F(NsqadminApiTest, TopicsTopicAndChannelSumOverNodes) {
  create_channel(0, "orders", "billing");
  create_channel(1, "orders", "billing");
  publish(0, "orders", 3);
  publish(1, "orders", 4);
  await_producers("orders", 2);
  Admin admin(lookupd_options());

  auto topics = admin.call("GET", "/api/topics");
  ASSERT_EQ(topics.status, 200) << topics.body;
  EXPECT_EQ(topics.content_type, "application/json; charset=utf-8");
  EXPECT_EQ(topics.body, R"({"topics":["orders"],"message":""})");

  auto topic = admin.call("GET", "/api/topics/orders");
  ASSERT_EQ(topic.status, 200) << topic.body;
  auto t = json(topic.body);
  EXPECT_EQ(str(t, "node"), "*");
  EXPECT_EQ(t["message_count"].GetInt64(), 7);
  ASSERT_EQ(t["nodes"].Size(), 2u);
  ASSERT_EQ(t["channels"].Size(), 1u);
  EXPECT_EQ(t["channels"][0]["depth"].GetInt64(), 7) << "3 + 4 messages wait in billing";
  EXPECT_EQ(str(t, "message"), "");

  auto channel = admin.call("GET", "/api/topics/orders/billing");
  ASSERT_EQ(channel.status, 200) << channel.body;
  auto c = json(channel.body);
  EXPECT_EQ(str(c, "channel_name"), "billing");
  EXPECT_EQ(c["depth"].GetInt64(), 7);
  EXPECT_EQ(c["nodes"].Size(), 2u);
  EXPECT_FALSE(c["paused"].GetBool());
}

TEST_F(NsqadminApiTest, NodesNodeAndCounter) {
  create_channel(0, "clicks", "stats");
  publish(0, "clicks", 5);
  await_producers("clicks", 1);
  await_nodes(2);
  Admin admin(lookupd_options());

  auto nodes = json(admin.call("GET", "/api/nodes").body);
  ASSERT_TRUE(nodes["nodes"].IsArray());
  ASSERT_EQ(nodes["nodes"].Size(), 2u);
  for (const auto& n : nodes["nodes"].GetArray()) {
    EXPECT_EQ(str(n, "broadcast_address"), "127.0.0.1");
    EXPECT_EQ(str(n, "version"), "1.3.0");
    ASSERT_EQ(n["remote_addresses"].Size(), 1u);
    EXPECT_EQ(std::string(n["remote_addresses"][0].GetString()).rfind(lookupd() + "/", 0), 0u);
  }

  auto one = admin.call("GET", "/api/nodes/" + node(0));
  ASSERT_EQ(one.status, 200) << one.body;
  auto n = json(one.body);
  EXPECT_EQ(str(n, "node"), node(0));
  EXPECT_EQ(n["total_messages"].GetInt64(), 5);
  ASSERT_EQ(n["topics"].Size(), 1u);
  EXPECT_EQ(str(n["topics"][0], "topic_name"), "clicks");

  auto missing = admin.call("GET", "/api/nodes/127.0.0.1:1");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"message":"NODE_NOT_FOUND"})");

  auto counter = json(admin.call("GET", "/api/counter").body);
  const std::string key = "clicks:stats:" + node(0);
  ASSERT_TRUE(counter["stats"].HasMember(key.c_str())) << key;
  EXPECT_EQ(counter["stats"][key.c_str()]["message_count"].GetInt64(), 5);
}

TEST_F(NsqadminApiTest, PauseEmptyAndDeleteReachEveryNsqd) {
  create_channel(0, "jobs", "work");
  create_channel(1, "jobs", "work");
  publish(0, "jobs", 2);
  publish(1, "jobs", 2);
  await_producers("jobs", 2);
  Admin admin(lookupd_options());

  auto paused = admin.call("POST", "/api/topics/jobs/work", R"({"action":"pause"})");
  ASSERT_EQ(paused.status, 200) << paused.body;
  EXPECT_EQ(paused.body, R"({"message":""})");
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(nsqd_topic(i, "jobs")["topics"][0]["channels"][0]["paused"].GetBool()) << i;
  }
  EXPECT_TRUE(json(admin.call("GET", "/api/topics/jobs/work").body)["paused"].GetBool());

  ASSERT_EQ(admin.call("POST", "/api/topics/jobs/work", R"({"action":"empty"})").status, 200);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(nsqd_topic(i, "jobs")["topics"][0]["channels"][0]["depth"].GetInt64(), 0) << i;
  }

  ASSERT_EQ(admin.call("POST", "/api/topics/jobs", R"({"action":"pause"})").status, 200);
  EXPECT_TRUE(nsqd_topic(0, "jobs")["topics"][0]["paused"].GetBool());

  auto deleted = admin.call("DELETE", "/api/topics/jobs");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(nsqd_topic(i, "jobs")["topics"].IsNull()) << i;
  auto topics = http_once(lookupd_.http_port(), "GET", "/topics");
  EXPECT_EQ(topics->body.find("\"jobs\""), std::string::npos) << topics->body;
}

TEST_F(NsqadminApiTest, CreateThroughLookupdAndInactiveTopics) {
  Admin admin(lookupd_options());
  auto created = admin.call("POST", "/api/topics", R"({"topic":"fresh","channel":"ch"})");
  ASSERT_EQ(created.status, 200) << created.body;
  auto inactive = json(admin.call("GET", "/api/topics", "", "inactive=true").body);
  ASSERT_TRUE(inactive["topics"].HasMember("fresh")) << "known to lookupd, produced by no nsqd";
  ASSERT_EQ(inactive["topics"]["fresh"].Size(), 1u);
  EXPECT_EQ(std::string(inactive["topics"]["fresh"][0].GetString()), "ch");
}

TEST_F(NsqadminApiTest, TombstoneNodeForTopic) {
  publish(0, "gone", 1);
  await_producers("gone", 1);
  Admin admin(lookupd_options());
  auto r = admin.call("DELETE", "/api/nodes/" + node(0), R"({"topic":"gone"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(nsqd_topic(0, "gone")["topics"].IsNull()) << "deleted on the node";
  // The nsqd unregisters the deleted topic from lookupd on its own connection.
  EXPECT_TRUE(eventually([&] {
    auto nodes = http_once(lookupd_.http_port(), "GET", "/nodes");
    return nodes && nodes->body.find("\"gone\"") == std::string::npos;
  }));
}

TEST_F(NsqadminApiTest, BadRequestsGetGoErrors) {
  Admin admin(lookupd_options());
  auto expect = [&](const http::Response& r, int status, const std::string& body) {
    EXPECT_EQ(r.status, status) << r.body;
    EXPECT_EQ(r.body, body);
  };
  expect(admin.call("POST", "/api/topics", R"({"topic":"bad name!"})"), 400,
         R"({"message":"INVALID_TOPIC"})");
  expect(admin.call("POST", "/api/topics", R"({"topic":"t","channel":"bad/ch"})"), 400,
         R"({"message":"INVALID_CHANNEL"})");
  expect(admin.call("POST", "/api/topics", ""), 400, R"({"message":"EOF"})");
  expect(admin.call("POST", "/api/topics/t", R"({"action":"explode"})"), 400,
         R"({"message":"INVALID_ACTION"})");
  expect(admin.call("DELETE", "/api/nodes/" + node(0), "{"), 400, R"({"message":"INVALID_BODY"})");
  expect(admin.call("PUT", "/api/topics"), 405, R"({"message":"METHOD_NOT_ALLOWED"})");
  expect(admin.call("GET", "/api/nothing"), 404, R"({"message":"NOT_FOUND"})");
  // A topic no lookupd knows: Go passes lookupd's 404 on as an upstream error.
  auto unknown = admin.call("GET", "/api/topics/never_seen");
  EXPECT_EQ(unknown.status, 502);
  EXPECT_NE(unknown.body.find("UPSTREAM_ERROR: Failed to query any nsqlookupd: got response 404"),
            std::string::npos)
      << unknown.body;
}

TEST_F(NsqadminApiTest, AdminUsersGuardActionsOnly) {
  Options o = lookupd_options();
  o.admin_users = {"alice"};
  o.acl_http_header = "X-Auth-User";
  Admin admin(o);
  auto forbidden = admin.call("POST", "/api/topics", R"({"topic":"x"})");
  EXPECT_EQ(forbidden.status, 403);
  EXPECT_EQ(forbidden.body, R"({"message":"FORBIDDEN"})");
  EXPECT_EQ(admin.call("DELETE", "/api/topics/x").status, 403);
  EXPECT_EQ(admin.call("GET", "/api/topics").status, 200) << "reading needs no admin";

  auto req = request("POST", "/api/topics", R"({"topic":"x"})");
  req.headers.emplace_back("x-auth-user", "alice");
  EXPECT_EQ(admin.api.handle(req).status, 200);
  req.headers.back().second = "mallory";
  EXPECT_EQ(admin.api.handle(req).status, 403);

  // The page tells the front end whether to offer the action buttons.
  if (ui_built()) {
    auto page = request("GET", "/topics");
    EXPECT_NE(admin.api.handle(page).body.find("\"is_admin\":false"), std::string::npos);
    page.headers.emplace_back("x-auth-user", "alice");
    EXPECT_NE(admin.api.handle(page).body.find("\"is_admin\":true"), std::string::npos);
  }
}

// Go registers every route with the base path, /ping included.
TEST_F(NsqadminApiTest, BasePathPrefixesEverything) {
  Options o = lookupd_options();
  o.base_path = "/admin/";
  Admin admin(o);
  EXPECT_EQ(admin.call("GET", "/admin/api/topics").status, 200);
  EXPECT_EQ(admin.call("GET", "/api/topics").status, 404);
  EXPECT_EQ(admin.call("GET", "/administrator/api/topics").status, 404);
  auto page = admin.call("GET", "/admin/topics/x");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/admin/"), std::string::npos);
  auto ping = admin.call("GET", "/admin/ping");
  EXPECT_EQ(ping.status, 200);
  EXPECT_EQ(ping.body, "OK");
  EXPECT_EQ(admin.call("GET", "/ping").status, 404);
}

// nsqadmin given a list of nsqd, one of which does not answer: the data of
// the live one plus a WARNING naming the dead one; with none alive, 502.
// A topic no nsqd produces: Go counts zero producers as "failed to query any
// nsqd" (with nothing after the colon) and answers 502, with lookupds and with
// an nsqd list alike.
TEST_F(NsqadminApiTest, TopicNoNsqdProducesIsGo502) {
  auto created = http_once(lookupd_.http_port(), "POST", "/topic/create?topic=orphan");
  ASSERT_TRUE(created && created->status == 200);
  Admin admin(lookupd_options());
  const std::string go = R"({"message":"UPSTREAM_ERROR: Failed to query any nsqd: "})";
  auto topic = admin.call("GET", "/api/topics/orphan");
  EXPECT_EQ(topic.status, 502);
  EXPECT_EQ(topic.body, go);
  auto channel = admin.call("GET", "/api/topics/orphan/some_channel");
  EXPECT_EQ(channel.status, 502);
  EXPECT_EQ(channel.body, go);

  Options direct;
  direct.nsqd_http_addresses = {node(0), node(1)};
  Admin nsqd_only(direct);
  topic = nsqd_only.call("GET", "/api/topics/nowhere");
  EXPECT_EQ(topic.status, 502);
  EXPECT_EQ(topic.body, go);
  // A produced topic is unaffected.
  publish(0, "somewhere", 1);
  EXPECT_EQ(nsqd_only.call("GET", "/api/topics/somewhere").status, 200);
}

TEST_F(NsqadminApiTest, UnreachableNsqdIsReportedNotHidden) {
  publish(0, "live", 3);
  const std::string dead = "127.0.0.1:" + std::to_string(dead_port());
  Options o;
  o.nsqd_http_addresses = {node(0), dead};
  Admin admin(o);

  auto topics = admin.call("GET", "/api/topics");
  ASSERT_EQ(topics.status, 200) << topics.body;
  auto t = json(topics.body);
  ASSERT_EQ(t["topics"].Size(), 1u);
  EXPECT_EQ(std::string(t["topics"][0].GetString()), "live");
  const std::string warning = str(t, "message");
  EXPECT_EQ(warning.rfind("WARNING: Get \"http://" + dead + "/stats?format=json", 0), 0u)
      << warning;
  EXPECT_NE(warning.find("connect " + dead), std::string::npos) << warning;

  auto topic = json(admin.call("GET", "/api/topics/live").body);
  EXPECT_EQ(topic["message_count"].GetInt64(), 3);
  EXPECT_EQ(str(topic, "message").rfind("WARNING: ", 0), 0u);

  auto nodes = json(admin.call("GET", "/api/nodes").body);
  EXPECT_EQ(nodes["nodes"].Size(), 1u);
  EXPECT_NE(str(nodes, "message").find(dead), std::string::npos);

  Options only_dead;
  only_dead.nsqd_http_addresses = {dead};
  Admin down(only_dead);
  auto failed = down.call("GET", "/api/topics");
  EXPECT_EQ(failed.status, 502);
  auto f = json(failed.body);
  EXPECT_EQ(
      str(f, "message").rfind("UPSTREAM_ERROR: Failed to query any nsqd: Get \"http://" + dead, 0),
      0u)
      << failed.body;
}

// A lookupd that died: 502 with its error; nsqadmin keeps answering.
TEST_F(NsqadminApiTest, UnreachableLookupd) {
  Options o;
  o.lookupd_http_addresses = {lookupd(), "127.0.0.1:" + std::to_string(dead_port())};
  Admin admin(o);
  auto partial = admin.call("GET", "/api/nodes");
  ASSERT_EQ(partial.status, 200);
  EXPECT_EQ(str(json(partial.body), "message").rfind("WARNING: Get \"http://127.0.0.1:", 0), 0u);
  ASSERT_TRUE(lookupd_.stop());
  auto failed = admin.call("GET", "/api/nodes");
  EXPECT_EQ(failed.status, 502);
  EXPECT_EQ(str(json(failed.body), "message")
                .rfind("UPSTREAM_ERROR: Failed to query any nsqlookupd: ", 0),
            0u)
      << failed.body;
}

// nsq-cpp's history: two polls of the real cluster (at times the test
// gives), then /api/history's answers and errors.
TEST_F(NsqadminApiTest, HistoryRecordsPollsAndServesThem) {
  create_channel(0, "hist", "work");
  create_channel(1, "hist", "work");
  publish(0, "hist", 4);
  publish(1, "hist", 6);
  await_producers("hist", 2);
  Options o = lookupd_options();
  o.base_path = normalize_base_path("/admin");
  HistoryShape shape;
  shape.interval = 1s;
  shape.duration = 60s;
  History history(shape);
  ClusterInfo cluster(UpstreamTimeouts{1000ms, 3000ms, {}}, nullptr);
  auto shared = std::make_shared<const Options>(o);
  HistoryPoller poller(
      &cluster, &history, [shared] { return shared; }, nullptr);
  ASSERT_TRUE(poller.poll_once(1'000'000));
  publish(0, "hist", 20);  // 20 messages in the 2 s between the polls: 10/s
  ASSERT_TRUE(poller.poll_once(1'002'000));
  Api api(&o, &cluster, nullptr, nullptr, &history);
  auto call = [&](const std::string& method, const std::string& path) {
    return api.handle(request(method, path));
  };

  auto topic = call("GET", "/admin/api/history/topics/hist");
  ASSERT_EQ(topic.status, 200) << topic.body;
  EXPECT_EQ(topic.content_type, "application/json; charset=utf-8");
  auto t = json(topic.body);
  EXPECT_EQ(t["interval_ms"].GetInt64(), 1000);
  ASSERT_EQ(t["time"].Size(), 2u);
  EXPECT_EQ(t["time"][1].GetInt64(), 1'002'000);
  EXPECT_TRUE(t["series"]["rate"][0].IsNull()) << "no rate from one poll";
  EXPECT_DOUBLE_EQ(t["series"]["rate"][1].GetDouble(), 10.0);

  auto channel = call("GET", "/admin/api/history/topics/hist/work");
  ASSERT_EQ(channel.status, 200) << channel.body;
  auto c = json(channel.body);
  EXPECT_DOUBLE_EQ(c["series"]["depth"][0].GetDouble(), 10.0);
  EXPECT_DOUBLE_EQ(c["series"]["depth"][1].GetDouble(), 30.0);
  EXPECT_DOUBLE_EQ(c["series"]["clients"][1].GetDouble(), 0.0);

  auto n0 = call("GET", "/admin/api/history/nodes/" + node(0));
  ASSERT_EQ(n0.status, 200) << n0.body;
  EXPECT_DOUBLE_EQ(json(n0.body)["series"]["rate"][1].GetDouble(), 10.0);

  auto expect_error = [&](const std::string& method, const std::string& path, int status,
                          const std::string& message) {
    auto r = call(method, path);
    EXPECT_EQ(r.status, status) << path;
    EXPECT_EQ(r.body, R"({"message":")" + message + R"("})") << path;
  };
  expect_error("GET", "/admin/api/history/topics/unknown", 404, "TOPIC_NOT_FOUND");
  expect_error("GET", "/admin/api/history/topics/hist/unknown", 404, "CHANNEL_NOT_FOUND");
  expect_error("GET", "/admin/api/history/nodes/10.0.0.1:4151", 404, "NODE_NOT_FOUND");
  expect_error("GET", "/admin/api/history/topics/bad!name", 400, "INVALID_TOPIC");
  expect_error("GET", "/admin/api/history/topics/hist/bad!name", 400, "INVALID_CHANNEL");
  expect_error("GET", "/admin/api/history/topics", 404, "NOT_FOUND");
  expect_error("GET", "/admin/api/history/topics/hist/work/more", 404, "NOT_FOUND");
  expect_error("GET", "/admin/api/history/channels/x", 404, "NOT_FOUND");
  expect_error("DELETE", "/admin/api/history/topics/hist", 405, "METHOD_NOT_ALLOWED");
  expect_error("GET", "/api/history/topics/hist", 404, "NOT_FOUND");  // outside the base path

  // Without a history (--history-duration=0, or --graphite-url).
  Api without(&o, &cluster, nullptr, nullptr);
  auto r = without.handle(request("GET", "/admin/api/history/topics/hist"));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, R"({"message":"HISTORY_DISABLED"})");

  // A deleted topic's series are forgotten a few polls later.
  ASSERT_EQ(call("DELETE", "/admin/api/topics/hist").status, 200);
  ASSERT_TRUE(poller.poll_once(1'010'000));
  EXPECT_EQ(call("GET", "/admin/api/history/topics/hist").status, 404);
  EXPECT_EQ(call("GET", "/admin/api/history/topics/hist/work").status, 404);
  EXPECT_EQ(call("GET", "/admin/api/history/nodes/" + node(0)).status, 200);
}

}  // namespace
}  // namespace nsq::admin
