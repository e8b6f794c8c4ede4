#include "topic_filter.h"

#include <gtest/gtest.h>

#include "lookupd_topics.h"

namespace nsq::to_file {
namespace {

TEST(TopicFilter, EmptyAllowsAll) { EXPECT_TRUE(TopicFilter("").allowed("anything")); }

TEST(TopicFilter, UnanchoredSearch) {
  TopicFilter f("ord.rs");
  EXPECT_TRUE(f.allowed("orders"));
  EXPECT_TRUE(f.allowed("big_orders_2"));
  EXPECT_FALSE(f.allowed("invoices"));
  TopicFilter anchored("^a$");
  EXPECT_TRUE(anchored.allowed("a"));
  EXPECT_FALSE(anchored.allowed("ab"));
}

TEST(TopicFilter, InvalidPatternMatchesNothing) { EXPECT_FALSE(TopicFilter("(").allowed("(")); }

TEST(LookupdTopics, ParsesTopicsList) {
  auto topics = parse_topics_json(R"({"topics":["b","a"]})");
  ASSERT_TRUE(topics);
  EXPECT_EQ(*topics, (std::vector<std::string>{"b", "a"}));
  EXPECT_TRUE(parse_topics_json(R"({"topics":[]})")->empty());
  EXPECT_FALSE(parse_topics_json("<html>"));
}

}  // namespace
}  // namespace nsq::to_file
