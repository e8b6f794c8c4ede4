// nsq_to_nsq's --require-json-field/-value and --whitelist-json-field rules
// and the Go-style JSON re-encoding.
#include "json_filter.h"

#include <gtest/gtest.h>

#include "go_json_encoder.h"

namespace nsq::tools::to_nsq_bridge {
namespace {

using Action = FilterDecision::Action;

TEST(JsonFilter, InactiveLeavesBodiesAlone) {
  JsonFilter f("", "", {});
  EXPECT_FALSE(f.active());
  auto d = f.apply("not json at all");
  EXPECT_EQ(d.action, Action::publish);
  EXPECT_EQ(d.body, "not json at all");
}

TEST(JsonFilter, UndecodableIsDroppedWithALog) {
  JsonFilter f("a", "", {});
  auto d = f.apply("{nope");
  EXPECT_EQ(d.action, Action::drop);
  EXPECT_EQ(d.log, "ERROR: Unable to decode json: {nope");
}

TEST(JsonFilter, RequiredFieldPresence) {
  JsonFilter f("kind", "", {});
  EXPECT_EQ(f.apply(R"({"kind":1,"x":2})").action, Action::publish);
  EXPECT_EQ(f.apply(R"({"kind":1,"x":2})").body, R"({"kind":1,"x":2})");
  EXPECT_EQ(f.apply(R"({"x":2})").action, Action::drop);
  EXPECT_EQ(f.apply(R"([1,2])").action, Action::drop);
}

TEST(JsonFilter, RequiredValueStringCompare) {
  JsonFilter f("kind", "order", {});
  EXPECT_EQ(f.apply(R"({"kind":"order"})").action, Action::publish);
  EXPECT_EQ(f.apply(R"({"kind":"refund"})").action, Action::drop);
  EXPECT_EQ(f.apply(R"({"kind":true})").action, Action::drop);
  // A missing field while a value is required: requeue with backoff.
  auto missing = f.apply(R"({"other":"order"})");
  EXPECT_EQ(missing.action, Action::requeue);
  EXPECT_EQ(missing.log, "ERROR: missing field to check required value");
}

TEST(JsonFilter, RequiredValueNumericCompare) {
  JsonFilter f("n", "5", {});
  EXPECT_EQ(f.apply(R"({"n":5})").action, Action::publish);
  EXPECT_EQ(f.apply(R"({"n":5.0})").action, Action::publish);
  EXPECT_EQ(f.apply(R"({"n":"5"})").action, Action::publish);  // string compare first
  EXPECT_EQ(f.apply(R"({"n":6})").action, Action::drop);
  JsonFilter text("n", "five", {});
  EXPECT_EQ(text.apply(R"({"n":5})").action, Action::drop);
}

TEST(JsonFilter, WhitelistReencodesWithSortedKeys) {
  JsonFilter f("", "", {"z", "a", "n", "f", "missing"});
  auto d = f.apply(R"({"a":"x<y","n":3.0,"f":1.5,"z":{"b":1,"a":[true,null]},"drop":1})");
  EXPECT_EQ(d.action, Action::publish);
  EXPECT_EQ(d.body, R"({"a":"x\u003cy","f":1.5,"n":3,"z":{"a":[true,null],"b":1}})");
}

TEST(JsonFilter, WhitelistOfANonObjectRequeues) {
  JsonFilter f("", "", {"a"});
  auto d = f.apply("[1]");
  EXPECT_EQ(d.action, Action::requeue);
  EXPECT_EQ(d.log, "ERROR: filterMessage() failed: json is not an object");
}

TEST(JsonFilter, RequireThenWhitelist) {
  JsonFilter f("kind", "order", {"id"});
  auto d = f.apply(R"({"kind":"order","id":7,"secret":"s"})");
  EXPECT_EQ(d.action, Action::publish);
  EXPECT_EQ(d.body, R"({"id":7})");
}

TEST(GoJson, StringEscapes) {
  rapidjson::Value v;
  std::string s = "q\"b\\n\n\x01&>\xe2\x80\xa8\xff\xc3\xa9";
  v.SetString(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  std::string out;
  append_go_json(out, v);
  EXPECT_EQ(out, R"("q\"b\\n\n\u0001\u0026\u003e\u2028\ufffdé")");
}

TEST(GoJson, Numbers) {
  rapidjson::Document d;
  d.Parse(R"([7,-3,18446744073709551615,2.0,1.5,0.000001,1e-7,1.5e21,123456.789])");
  std::string out;
  append_go_json(out, d);
  EXPECT_EQ(out, "[7,-3,18446744073709551615,2,1.5,0.000001,1e-7,1.5e+21,123456.789]");
}

}  // namespace
}  // namespace nsq::tools::to_nsq_bridge
