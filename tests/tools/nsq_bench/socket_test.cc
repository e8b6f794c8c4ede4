#include "socket.h"

#include <gtest/gtest.h>

namespace nsq::bench {
namespace {

TEST(SplitHostPort, Forms) {
  std::string host;
  std::string port;
  ASSERT_TRUE(split_host_port("127.0.0.1:4150", host, port));
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, "4150");
  ASSERT_TRUE(split_host_port("[::1]:4150", host, port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, "4150");
  ASSERT_TRUE(split_host_port(":4150", host, port));  // Go: empty host = local
  EXPECT_EQ(host, "");
  ASSERT_TRUE(split_host_port("nsqd.example:4150", host, port));
  EXPECT_EQ(host, "nsqd.example");
}

TEST(SplitHostPort, Malformed) {
  std::string host;
  std::string port;
  EXPECT_FALSE(split_host_port("127.0.0.1", host, port));
  EXPECT_FALSE(split_host_port("127.0.0.1:", host, port));
  EXPECT_FALSE(split_host_port("", host, port));
}

TEST(ConnectTcp, BadAddressIsAClearError) {
  auto s = connect_tcp("no-port");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("want host:port"), std::string::npos) << s.error();
}

}  // namespace
}  // namespace nsq::bench
