// nsq_to_http's pure parts: --header parsing and the GET URL of a body.
#include <gtest/gtest.h>

#include "custom_headers.h"
#include "http_publisher.h"

namespace nsq::tools::to_http {
namespace {

TEST(CustomHeaders, SplitAtTheFirstColonAndTrimmed) {
  auto h = parse_custom_headers({" X-A : b:c ", "X-B:1", "X-A: again"});
  ASSERT_TRUE(h) << h.error();
  EXPECT_EQ(*h, (http::HeaderList{{"X-A", "again"}, {"X-B", "1"}}));
}

TEST(CustomHeaders, Invalid) {
  EXPECT_EQ(parse_custom_headers({"nocolon"}).error(), "Invalid header: \"nocolon\"");
  EXPECT_EQ(parse_custom_headers({"X-A:  "}).error(), "Invalid header: \"X-A:  \"");
  EXPECT_EQ(parse_custom_headers({": v"}).error(), "Invalid header: \": v\"");
}

TEST(GetUrl, PercentSIsTheQueryEscapedBody) {
  EXPECT_EQ(HttpPublisher::get_url("http://h/p?d=%s&x=100%%", "a b+c"),
            "http://h/p?d=a+b%2Bc&x=100%");
}

}  // namespace
}  // namespace nsq::tools::to_http
