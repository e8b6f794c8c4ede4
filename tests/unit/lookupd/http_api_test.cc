#include "http_api.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

namespace nsq::lookupd {
namespace {

using namespace std::chrono_literals;

const Time kT0 = Time{} + std::chrono::hours(24 * 365 * 50);

http::Request request(const std::string& method, const std::string& path,
                      std::vector<std::pair<std::string, std::string>> query = {}) {
  http::Request r;
  r.method = method;
  r.path = path;
  r.target = path;
  r.query = std::move(query);
  return r;
}

std::optional<std::string> header(const http::Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return std::nullopt;
}

struct HttpApiTest : ::testing::Test {
  RegistrationDb db;
  Options options;
  HttpApi api{
      db, options,
      std::make_shared<spdlog::logger>("t", std::make_shared<spdlog::sinks::null_sink_mt>())};

  std::shared_ptr<Peer> add_peer(const std::string& id, const std::string& bcast, int http_port,
                                 Time now, const std::string& zone = {},
                                 const std::string& region = {}) {
    PeerInfo info{id, id, "host", bcast, 4150, http_port, "1.3.0", zone, region};
    auto p = std::make_shared<Peer>(std::move(info), now);
    db.add_producer(Registration{"client", "", ""}, p);
    return p;
  }
  http::Response get(const std::string& path,
                     std::vector<std::pair<std::string, std::string>> q = {}, Time now = kT0) {
    return api.handle(request("GET", path, std::move(q)), now);
  }
  http::Response post(const std::string& path,
                      std::vector<std::pair<std::string, std::string>> q = {}, Time now = kT0) {
    return api.handle(request("POST", path, std::move(q)), now);
  }
};

TEST_F(HttpApiTest, PingInfoAndV1Conventions) {
  auto r = get("/ping");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "OK");
  r = get("/info");
  EXPECT_EQ(r.body, R"({"version":"1.3.0"})");
  EXPECT_EQ(header(r, "X-NSQ-Content-Type"), "nsq; version=1.0");
  EXPECT_EQ(r.content_type, "application/json; charset=utf-8");
  r = get("/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, R"({"message":"NOT_FOUND"})");
  r = post("/lookup");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, R"({"message":"METHOD_NOT_ALLOWED"})");
  r = get("/topic/create");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(get("/topics/").status, 301);
}

TEST_F(HttpApiTest, TopicsChannelsLookup) {
  EXPECT_EQ(get("/topics").body, R"({"topics":[]})");
  EXPECT_EQ(get("/lookup").body, R"({"message":"MISSING_ARG_TOPIC"})");
  EXPECT_EQ(get("/lookup", {{"topic", "t"}}).status, 404);
  EXPECT_EQ(get("/lookup", {{"topic", "t"}}).body, R"({"message":"TOPIC_NOT_FOUND"})");
  EXPECT_EQ(get("/channels").status, 400);
  EXPECT_EQ(get("/channels", {{"topic", "t"}}).body, R"({"channels":[]})");

  auto p = add_peer("1.1.1.1:9", "nsqd1", 4151, kT0);
  db.add_producer(Registration{"topic", "t", ""}, p);
  db.add_producer(Registration{"channel", "t", "c"}, p);
  EXPECT_EQ(get("/topics").body, R"({"topics":["t"]})");
  EXPECT_EQ(get("/channels", {{"topic", "t"}}).body, R"({"channels":["c"]})");
  EXPECT_EQ(get("/lookup", {{"topic", "t"}}).body,
            R"({"channels":["c"],"producers":[{"remote_address":"1.1.1.1:9","hostname":"host",)"
            R"("broadcast_address":"nsqd1","tcp_port":4150,"http_port":4151,"version":"1.3.0"}]})");
  EXPECT_EQ(get("/nodes").body,
            R"({"producers":[{"remote_address":"1.1.1.1:9","hostname":"host",)"
            R"("broadcast_address":"nsqd1","tcp_port":4150,"http_port":4151,"version":"1.3.0",)"
            R"("tombstones":[false],"topics":["t"]}]})");
  // Inactive: gone from /lookup and /nodes.
  EXPECT_EQ(get("/lookup", {{"topic", "t"}}, kT0 + 301s).body,
            R"({"channels":["c"],"producers":[]})");
  EXPECT_EQ(get("/nodes", {}, kT0 + 301s).body, R"({"producers":[]})");
}

// Go master: an nsqd's topology, when it sent one, follows its version.
TEST_F(HttpApiTest, ProducersShowTheirTopologyWhenSet) {
  auto p = add_peer("1.1.1.1:9", "nsqd1", 4151, kT0, "z1", "r1");
  db.add_producer(Registration{"topic", "t", ""}, p);
  EXPECT_EQ(get("/lookup", {{"topic", "t"}}).body,
            R"({"channels":[],"producers":[{"remote_address":"1.1.1.1:9","hostname":"host",)"
            R"("broadcast_address":"nsqd1","tcp_port":4150,"http_port":4151,"version":"1.3.0",)"
            R"("topology_zone":"z1","topology_region":"r1"}]})");
}

TEST_F(HttpApiTest, TombstoneAndAdminActions) {
  auto p = add_peer("1.1.1.1:9", "nsqd1", 4151, kT0);
  db.add_producer(Registration{"topic", "t", ""}, p);
  EXPECT_EQ(post("/topic/tombstone").body, R"({"message":"MISSING_ARG_TOPIC"})");
  EXPECT_EQ(post("/topic/tombstone", {{"topic", "t"}}).body, R"({"message":"MISSING_ARG_NODE"})");
  EXPECT_EQ(post("/topic/tombstone", {{"topic", "t"}, {"node", "nsqd1:4151"}}).status, 200);
  EXPECT_EQ(get("/lookup", {{"topic", "t"}}, kT0 + 1s).body, R"({"channels":[],"producers":[]})");
  EXPECT_NE(get("/nodes", {}, kT0 + 1s).body.find(R"("tombstones":[true])"), std::string::npos);
  EXPECT_NE(get("/lookup", {{"topic", "t"}}, kT0 + 46s).body.find("nsqd1"), std::string::npos);

  EXPECT_EQ(post("/topic/create").body, R"({"message":"MISSING_ARG_TOPIC"})");
  EXPECT_EQ(post("/topic/create", {{"topic", "bad!"}}).body, R"({"message":"INVALID_ARG_TOPIC"})");
  EXPECT_EQ(post("/topic/create", {{"topic", "new"}}).status, 200);
  EXPECT_EQ(get("/lookup", {{"topic", "new"}}).body, R"({"channels":[],"producers":[]})");

  EXPECT_EQ(post("/channel/create", {{"topic", "new"}}).body,
            R"({"message":"MISSING_ARG_CHANNEL"})");
  EXPECT_EQ(post("/channel/create", {{"topic", "new"}, {"channel", "b@d"}}).body,
            R"({"message":"INVALID_ARG_CHANNEL"})");
  EXPECT_EQ(post("/channel/create", {{"topic", "t2"}, {"channel", "c"}}).status, 200);
  EXPECT_EQ(get("/channels", {{"topic", "t2"}}).body, R"({"channels":["c"]})");
  EXPECT_EQ(post("/channel/delete", {{"topic", "t2"}, {"channel", "x"}}).status, 404);
  EXPECT_EQ(post("/channel/delete", {{"topic", "t2"}, {"channel", "x"}}).body,
            R"({"message":"CHANNEL_NOT_FOUND"})");
  EXPECT_EQ(post("/channel/delete", {{"topic", "t2"}, {"channel", "c"}}).status, 200);
  EXPECT_EQ(get("/channels", {{"topic", "t2"}}).body, R"({"channels":[]})");

  post("/channel/create", {{"topic", "t2"}, {"channel", "c"}});
  EXPECT_EQ(post("/topic/delete", {{"topic", "t2"}}).status, 200);
  EXPECT_EQ(post("/topic/delete", {{"topic", "never!"}}).status, 200);
  EXPECT_EQ(get("/lookup", {{"topic", "t2"}}).status, 404);
  EXPECT_EQ(get("/channels", {{"topic", "t2"}}).body, R"({"channels":[]})");
}

TEST_F(HttpApiTest, Debug) {
  EXPECT_EQ(get("/debug").body, "{}");
  auto p = add_peer("1.1.1.1:9", "nsqd1", 4151, kT0);
  db.add_producer(Registration{"topic", "t", ""}, p);
  db.add_registration(Registration{"topic", "empty", ""});
  const std::string body = get("/debug").body;
  EXPECT_EQ(body.find("topic:empty:"), std::string::npos);
  EXPECT_NE(
      body.find(
          R"("client::":[{"broadcast_address":"nsqd1","hostname":"host","http_port":4151,"id":"1.1.1.1:9","last_update":)"),
      std::string::npos);
  EXPECT_NE(body.find(R"("topic:t:":[)"), std::string::npos);
  EXPECT_NE(
      body.find(R"("tombstoned":false,"tombstoned_at":-6795364578871345152,"version":"1.3.0"})"),
      std::string::npos);
}

}  // namespace
}  // namespace nsq::lookupd
