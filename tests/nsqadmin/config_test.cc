// GET/PUT <base-path>/config/:opt (Go's doConfig) and --allow-config-from-cidr:
// the CIDR parsing on its own, the handler in process (so requests can come
// "from" any address), and a PUT over a real socket that points nsqadmin at
// a real nsqlookupd.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <string>

#include "admin_server.h"
#include "api.h"
#include "cidr.h"
#include "cluster_info.h"
#include "nsq/go_logger.h"
#include "options.h"
#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"

namespace nsq::admin {
namespace {

using namespace std::chrono_literals;

TEST(NsqadminCidr, ParsesAndContainsAsGo) {
  auto lo = parse_cidr("127.0.0.1/8");
  ASSERT_TRUE(lo);
  EXPECT_TRUE(contains(*lo, "127.0.0.1"));
  EXPECT_TRUE(contains(*lo, "127.255.1.2"));
  EXPECT_TRUE(contains(*lo, "::ffff:127.0.0.9")) << "IPv4-mapped form of an address inside";
  EXPECT_FALSE(contains(*lo, "128.0.0.1"));
  EXPECT_FALSE(contains(*lo, "::1"));
  auto v6 = parse_cidr("::1/128");
  ASSERT_TRUE(v6);
  EXPECT_TRUE(contains(*v6, "::1"));
  EXPECT_FALSE(contains(*v6, "127.0.0.1"));
  auto all6 = parse_cidr("::/0");
  ASSERT_TRUE(all6);
  EXPECT_FALSE(contains(*all6, "10.0.0.1")) << "Go never matches across address lengths";
  auto all4 = parse_cidr("0.0.0.0/0");
  ASSERT_TRUE(all4);
  EXPECT_TRUE(contains(*all4, "192.168.7.7"));
  auto narrow = parse_cidr("10.1.2.128/25");
  ASSERT_TRUE(narrow);
  EXPECT_TRUE(contains(*narrow, "10.1.2.200"));
  EXPECT_FALSE(contains(*narrow, "10.1.2.127"));
  for (const char* bad :
       {"127.0.0.1", "127.0.0.1/33", "x/8", "::1/129", "10.0.0.0/-1", "1.2.3.4/"}) {
    EXPECT_FALSE(parse_cidr(bad)) << bad;
  }
  EXPECT_EQ(remote_host("10.0.0.1:555"), "10.0.0.1");
  EXPECT_EQ(remote_host("[::1]:555"), "::1");
  EXPECT_EQ(remote_host("garbage"), "");
}

http::Request request(const std::string& method, const std::string& path, const std::string& body,
                      const std::string& from) {
  http::Request r;
  r.method = method;
  r.path = path;
  r.target = path;
  r.body = body;
  r.remote_address = from;
  return r;
}

struct InProcess {
  explicit InProcess(Options o)
      : options(std::move(o)),
        cluster(UpstreamTimeouts{1000ms, 1000ms, {}}, nullptr),
        api(&options, &cluster, nullptr, nullptr) {}
  http::Response call(const std::string& method, const std::string& path,
                      const std::string& body = "", const std::string& from = "127.0.0.1:999") {
    return api.handle(request(method, path, body, from));
  }
  Options options;
  ClusterInfo cluster;
  Api api;
};

Options base_options() {
  Options o;
  o.nsqd_http_addresses = {"127.0.0.1:4151"};
  return o;
}

TEST(NsqadminConfig, GetReadsOptionsAsGoEncodesThem) {
  InProcess a(base_options());
  auto r = a.call("GET", "/config/nsqd_http_addresses");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"(["127.0.0.1:4151"])");
  EXPECT_EQ(r.content_type, "application/json; charset=utf-8");
  r = a.call("GET", "/config/nsqlookupd_http_addresses");
  EXPECT_EQ(r.body, "[]");
  r = a.call("GET", "/config/log_level");
  EXPECT_EQ(r.body, "2") << "lg.LogLevel INFO is 2";
  r = a.call("GET", "/config/statsd_interval");
  EXPECT_EQ(r.body, "60000000000");
  r = a.call("GET", "/config/proxy_graphite");
  EXPECT_EQ(r.body, "false");
  r = a.call("GET", "/config/statsd_prefix");
  EXPECT_EQ(r.body, "nsq.%s") << "strings go out raw";
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  r = a.call("GET", "/config/allow_config_from_cidr");
  EXPECT_EQ(r.body, "127.0.0.1/8");
  r = a.call("GET", "/config/no_such_option");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"message":"INVALID_OPTION"})");
  r = a.call("POST", "/config/log_level", "debug");
  EXPECT_EQ(r.status, 405);
}

TEST(NsqadminConfig, PutChangesLookupdsAndLogLevelOnly) {
  InProcess a(base_options());
  auto r =
      a.call("PUT", "/config/nsqlookupd_http_addresses", R"(["10.0.0.1:4161","10.0.0.2:4161"])");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"(["10.0.0.1:4161","10.0.0.2:4161"])");
  EXPECT_EQ(a.api.options()->lookupd_http_addresses.size(), 2u);
  r = a.call("GET", "/config/nsqlookupd_http_addresses");
  EXPECT_EQ(r.body, R"(["10.0.0.1:4161","10.0.0.2:4161"])");

  r = a.call("PUT", "/config/log_level", "WARN");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "3");
  EXPECT_EQ(a.api.options()->log_level, GoLogLevel::warn);

  r = a.call("PUT", "/config/log_level", "loud");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"message":"INVALID_VALUE"})");
  r = a.call("PUT", "/config/nsqlookupd_http_addresses", R"({"a":1})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"message":"INVALID_VALUE"})");
  r = a.call("PUT", "/config/nsqlookupd_http_addresses", "");
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body, R"({"message":"INVALID_VALUE"})");
  r = a.call("PUT", "/config/statsd_prefix", "x.%s");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"message":"INVALID_OPTION"})");
  EXPECT_EQ(a.api.options()->statsd_prefix, "nsq.%s");
  EXPECT_EQ(a.api.options()->lookupd_http_addresses.size(), 2u) << "failed PUTs change nothing";
}

TEST(NsqadminConfig, AllowConfigFromCidrGuardsReadsAndWrites) {
  InProcess a(base_options());  // default 127.0.0.1/8
  auto r = a.call("GET", "/config/log_level", "", "10.0.0.5:4444");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"message":"FORBIDDEN"})");
  r = a.call("PUT", "/config/log_level", "debug", "10.0.0.5:4444");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(a.api.options()->log_level, GoLogLevel::info);
  r = a.call("GET", "/config/log_level", "", "[::1]:4444");
  EXPECT_EQ(r.status, 403) << "::1 is not in an IPv4 network";
  r = a.call("GET", "/config/log_level", "", "nonsense");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"message":"INVALID_REMOTE_ADDR"})");
  r = a.call("GET", "/api/nodes", "", "10.0.0.5:4444");
  EXPECT_NE(r.status, 403) << "only /config is guarded";

  Options wide = base_options();
  wide.allow_config_from_cidr = "10.0.0.0/8";
  InProcess b(wide);
  EXPECT_EQ(b.call("GET", "/config/log_level", "", "10.0.0.5:4444").status, 200);
  EXPECT_EQ(b.call("GET", "/config/log_level", "", "127.0.0.1:4444").status, 403);

  Options open = base_options();
  open.allow_config_from_cidr = "";
  InProcess c(open);
  EXPECT_EQ(c.call("PUT", "/config/log_level", "error", "203.0.113.9:1").status, 200);

  Options based = base_options();
  based.base_path = "/admin";
  InProcess e(based);
  EXPECT_EQ(e.call("GET", "/admin/config/log_level").status, 200);
  EXPECT_EQ(e.call("GET", "/config/log_level").status, 404);
}

// Over a real socket: PUT the lookupd list, and the API reads from that lookupd.
TEST(NsqadminConfig, PutLookupdsOverHttpRedirectsTheApi) {
  if (testutil::nsqlookupd_binary_path().empty()) GTEST_SKIP() << "nsqlookupd not built";
  testutil::NsqlookupdProcess lookupd;
  ASSERT_EQ(lookupd.start({}), "");
  testutil::HttpClient lc(lookupd.http_port());
  auto created = lc.request("POST", "/topic/create?topic=from_config");
  ASSERT_TRUE(created && created->status == 200);

  Options o;
  o.http_address = "127.0.0.1:0";
  o.lookupd_http_addresses = {"127.0.0.1:1"};  // nothing there
  AdminServer admin(o, make_go_logger("nsqadmin-cfg", "[nsqadmin] ", GoLogLevel::fatal));
  ASSERT_EQ(admin.start(), "");
  testutil::HttpClient client(admin.port());
  auto before = client.request("GET", "/api/topics");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, 502);

  const std::string list = R"(["127.0.0.1:)" + std::to_string(lookupd.http_port()) + R"("])";
  auto put = client.request("PUT", "/config/nsqlookupd_http_addresses", list);
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 200) << put->body;
  EXPECT_EQ(put->body, list);
  auto after = client.request("GET", "/api/topics");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200) << after->body;
  EXPECT_EQ(after->body, R"({"topics":["from_config"],"message":""})");
  admin.stop();
}

}  // namespace
}  // namespace nsq::admin
