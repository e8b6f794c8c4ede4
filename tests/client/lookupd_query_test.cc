#include "lookupd_query.h"

#include <gtest/gtest.h>

namespace nsq::client {
namespace {

TEST(LookupdAddress, HostPortGetsSchemeAndPath) {
  auto e = parse_lookupd_address("127.0.0.1:4161");
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_EQ(e->port, 4161);
  EXPECT_EQ(e->path, "/lookup");
}

TEST(LookupdAddress, UrlKeepsItsPath) {
  auto e = parse_lookupd_address("http://lookupd.example:80/custom/lookup");
  ASSERT_TRUE(e) << e.error();
  EXPECT_EQ(e->host, "lookupd.example");
  EXPECT_EQ(e->port, 80);
  EXPECT_EQ(e->path, "/custom/lookup");
  auto root = parse_lookupd_address("http://[::1]:4161/");
  ASSERT_TRUE(root) << root.error();
  EXPECT_EQ(root->host, "::1");
  EXPECT_EQ(root->path, "/lookup");
}

TEST(LookupdAddress, BadOnesAreRefused) {
  EXPECT_FALSE(parse_lookupd_address("no-port"));
  EXPECT_FALSE(parse_lookupd_address("host:99999"));
  EXPECT_FALSE(parse_lookupd_address("host:"));
  EXPECT_FALSE(parse_lookupd_address("ftp://host:21"));
}

TEST(LookupProducers, V1AndV0Bodies) {
  auto v1 = parse_lookup_producers(
      R"({"channels":["c"],"producers":[{"remote_address":"10.0.0.1:5555","hostname":"h",)"
      R"("broadcast_address":"10.0.0.1","tcp_port":4150,"http_port":4151,"version":"1.3.0"},)"
      R"({"broadcast_address":"::1","tcp_port":4250}]})");
  ASSERT_TRUE(v1) << v1.error();
  EXPECT_EQ(*v1, (std::vector<std::string>{"10.0.0.1:4150", "[::1]:4250"}));
  auto v0 = parse_lookup_producers(
      R"({"status_code":200,"status_txt":"OK","data":{"producers":[{"broadcast_address":"a","tcp_port":1}]}})");
  ASSERT_TRUE(v0) << v0.error();
  EXPECT_EQ(*v0, (std::vector<std::string>{"a:1"}));
  EXPECT_FALSE(parse_lookup_producers("not json"));
  EXPECT_FALSE(parse_lookup_producers(R"({"message":"TOPIC_NOT_FOUND"})"));
}

}  // namespace
}  // namespace nsq::client
