// GET /stats (http-api.md §3 /stats): the JSON schema and key order, the
// filters, and counters that match what a raw TCP consumer and producer did.

#include <ctime>

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using HttpStatsTest = HttpTest;

const char* kTopicKeys =
    "topic_name,channels,depth,backend_depth,message_count,message_bytes,paused,"
    "e2e_processing_latency";
const char* kChannelKeys =
    "channel_name,depth,backend_depth,in_flight_count,deferred_count,message_count,"
    "requeue_count,timeout_count,client_count,clients,paused,e2e_processing_latency";
const char* kClientKeys =
    "client_id,hostname,version,remote_address,state,ready_count,in_flight_count,"
    "message_count,finish_count,requeue_count,connect_ts,sample_rate,deflate,snappy,"
    "user_agent,tls,tls_cipher_suite,tls_version,tls_negotiated_protocol,"
    "tls_negotiated_protocol_is_mutual";
const char* kProducerKeys =
    "client_id,hostname,version,remote_address,state,ready_count,in_flight_count,"
    "message_count,finish_count,requeue_count,connect_ts,sample_rate,deflate,snappy,"
    "user_agent,pub_counts,tls,tls_cipher_suite,tls_version,tls_negotiated_protocol,"
    "tls_negotiated_protocol_is_mutual";
const char* kMemoryKeys =
    "heap_objects,heap_idle_bytes,heap_in_use_bytes,heap_released_bytes,gc_pause_usec_100,"
    "gc_pause_usec_99,gc_pause_usec_95,next_gc_bytes,gc_total_runs";

std::vector<std::string> names(const rapidjson::Value& arr, const char* field) {
  std::vector<std::string> out;
  if (!arr.IsArray()) return out;
  for (auto& e : arr.GetArray()) out.emplace_back(e[field].GetString());
  return out;
}

std::string str_of(const rapidjson::Value& obj, const char* key) {
  if (!obj.HasMember(key) || !obj[key].IsString()) return "<missing " + std::string(key) + ">";
  return obj[key].GetString();
}

bool bool_of(const rapidjson::Value& obj, const char* key) {
  EXPECT_TRUE(obj.HasMember(key) && obj[key].IsBool()) << key;
  return obj.HasMember(key) && obj[key].IsBool() && obj[key].GetBool();
}

void expect_empty_latency(const rapidjson::Value& obj) {
  ASSERT_TRUE(obj.HasMember("e2e_processing_latency"));
  auto& l = obj["e2e_processing_latency"];
  EXPECT_EQ(join(keys_of(l)), "count,percentiles");
  EXPECT_EQ(int_of(l, "count"), 0);
  EXPECT_TRUE(l["percentiles"].IsNull());
}

class StatsScenario : public HttpStatsTest {
 protected:
  // Topics b and a (created in that order), channels z (HTTP-created, no
  // consumer) and y (an identified consumer with RDY 7) on a; a TCP producer
  // PUBs 4 messages to a and stays connected, an HTTP client publishes one to
  // b. The consumer FINs 2, REQs 1 with a long delay, keeps 1 in flight.
  void SetUp() override {
    HttpStatsTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    start_http();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=b"), ""));
    ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=a"), ""));
    ASSERT_TRUE(is_v1_ok(post("/channel/create?topic=a&channel=z"), ""));
    consumer_ =
        consumer("a", "y", 7, R"({"client_id":"cid","hostname":"hn","user_agent":"ua/1.0"})");
    producer_ = client();
    for (int i = 0; i < 4; ++i) {
      producer_.pub("a", "m" + std::to_string(i));
      ASSERT_TRUE(got_response(producer_, "OK"));
    }
    ASSERT_TRUE(is_v1_ok(post("/pub?topic=b", "h"), "OK"));
    std::vector<TestMessage> got;
    for (int i = 0; i < 4; ++i) {
      auto m = read_message(consumer_);
      ASSERT_TRUE(m);
      got.push_back(*m);
    }
    consumer_.fin(got[0].id);
    consumer_.fin(got[1].id);
    consumer_.req(got[2].id, 600000);
    ASSERT_TRUE(stats_eventually([&] {
      auto* ch = channel("a", "y");
      return ch && int_of(*ch, "in_flight_count") == 1 && int_of(*ch, "deferred_count") == 1;
    })) << stats_body_;
  }

  RawClient consumer_;
  RawClient producer_;
};

// JSON: key order of every object, sorting, and counters matching the scenario.
TEST_F(StatsScenario, JsonSchemaAndCounters) {
  if (IsSkipped() || HasFatalFailure()) return;
  auto r = get("/stats?format=json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->describe();
  EXPECT_EQ(r->header("x-nsq-content-type"), kV1Header);
  EXPECT_EQ(r->header("content-type"), kJsonType);
  EXPECT_EQ(r->body.find(": "), std::string::npos) << "not compact: " << r->body;
  rapidjson::Document d;
  ASSERT_FALSE(d.Parse(r->body.c_str()).HasParseError()) << r->body;
  EXPECT_EQ(join(keys_of(d)), "version,health,start_time,topics,memory,producers");
  EXPECT_EQ(str_of(d, "version"), "1.3.0");
  EXPECT_EQ(str_of(d, "health"), "OK");
  // system_clock, not time(): glibc's time() reads a coarse clock that can lag a few ms.
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  EXPECT_LE(int_of(d, "start_time"), now);
  EXPECT_GE(int_of(d, "start_time"), now - 60);
  EXPECT_EQ(join(keys_of(d["memory"])), kMemoryKeys);
  for (auto& m : d["memory"].GetObject()) EXPECT_TRUE(m.value.IsInt64()) << m.name.GetString();

  ASSERT_TRUE(d["topics"].IsArray());
  EXPECT_EQ(names(d["topics"], "topic_name"), (std::vector<std::string>{"a", "b"}))
      << "topics sorted by name";
  auto* a = find_named(d["topics"], "topic_name", "a");
  auto* b = find_named(d["topics"], "topic_name", "b");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(join(keys_of(*a)), kTopicKeys);
  EXPECT_EQ(int_of(*a, "depth"), 0);
  EXPECT_EQ(int_of(*a, "backend_depth"), 0);
  EXPECT_EQ(int_of(*a, "message_count"), 4);
  EXPECT_EQ(int_of(*a, "message_bytes"), 8);
  EXPECT_FALSE(bool_of(*a, "paused"));
  expect_empty_latency(*a);
  EXPECT_EQ(int_of(*b, "message_count"), 1);
  EXPECT_EQ(int_of(*b, "message_bytes"), 1);
  EXPECT_EQ(int_of(*b, "depth"), 1);
  EXPECT_TRUE((*b)["channels"].IsArray() && (*b)["channels"].Empty()) << "no channels → []";

  EXPECT_EQ(names((*a)["channels"], "channel_name"), (std::vector<std::string>{"y", "z"}))
      << "channels sorted";
  auto* y = find_named((*a)["channels"], "channel_name", "y");
  auto* z = find_named((*a)["channels"], "channel_name", "z");
  ASSERT_TRUE(y && z);
  EXPECT_EQ(join(keys_of(*y)), kChannelKeys);
  EXPECT_EQ(int_of(*y, "depth"), 0);
  EXPECT_EQ(int_of(*y, "backend_depth"), 0);
  EXPECT_EQ(int_of(*y, "in_flight_count"), 1);
  EXPECT_EQ(int_of(*y, "deferred_count"), 1);
  EXPECT_EQ(int_of(*y, "message_count"), 4);
  EXPECT_EQ(int_of(*y, "requeue_count"), 1);
  EXPECT_EQ(int_of(*y, "timeout_count"), 0);
  EXPECT_EQ(int_of(*y, "client_count"), 1);
  EXPECT_FALSE(bool_of(*y, "paused"));
  expect_empty_latency(*y);
  EXPECT_EQ(int_of(*z, "depth"), 4);
  EXPECT_EQ(int_of(*z, "in_flight_count"), 0);
  EXPECT_EQ(int_of(*z, "message_count"), 4);
  EXPECT_EQ(int_of(*z, "client_count"), 0);

  ASSERT_TRUE((*y)["clients"].IsArray() && (*y)["clients"].Size() == 1) << r->body;
  auto& c = (*y)["clients"][0];
  EXPECT_EQ(join(keys_of(c)), kClientKeys);
  EXPECT_EQ(str_of(c, "client_id"), "cid");
  EXPECT_EQ(str_of(c, "hostname"), "hn");
  EXPECT_EQ(str_of(c, "version"), "V2");
  EXPECT_EQ(str_of(c, "remote_address").rfind("127.0.0.1:", 0), 0u) << str_of(c, "remote_address");
  EXPECT_EQ(int_of(c, "state"), 3);
  EXPECT_EQ(int_of(c, "ready_count"), 7);
  EXPECT_EQ(int_of(c, "in_flight_count"), 1);
  EXPECT_EQ(int_of(c, "message_count"), 4);
  EXPECT_EQ(int_of(c, "finish_count"), 2);
  EXPECT_EQ(int_of(c, "requeue_count"), 1);
  EXPECT_LE(int_of(c, "connect_ts"), now);
  EXPECT_GE(int_of(c, "connect_ts"), now - 60);
  EXPECT_EQ(int_of(c, "sample_rate"), 0);
  EXPECT_FALSE(bool_of(c, "deflate"));
  EXPECT_FALSE(bool_of(c, "snappy"));
  EXPECT_EQ(str_of(c, "user_agent"), "ua/1.0");
  EXPECT_FALSE(bool_of(c, "tls"));
  EXPECT_EQ(str_of(c, "tls_cipher_suite"), "");
  EXPECT_EQ(str_of(c, "tls_version"), "");

  // Only the TCP publisher is a producer (not the HTTP one, not the consumer).
  ASSERT_TRUE(d["producers"].IsArray() && d["producers"].Size() == 1) << r->body;
  auto& p = d["producers"][0];
  EXPECT_EQ(join(keys_of(p)), kProducerKeys);
  EXPECT_EQ(str_of(p, "client_id"), "127.0.0.1") << "remote IP before IDENTIFY";
  EXPECT_EQ(str_of(p, "hostname"), "127.0.0.1");
  EXPECT_EQ(str_of(p, "version"), "V2");
  EXPECT_EQ(int_of(p, "state"), 0);
  EXPECT_EQ(str_of(p, "user_agent"), "");
  ASSERT_TRUE(p["pub_counts"].IsArray() && p["pub_counts"].Size() == 1) << r->body;
  EXPECT_EQ(join(keys_of(p["pub_counts"][0])), "topic,count");
  EXPECT_EQ(str_of(p["pub_counts"][0], "topic"), "a");
  EXPECT_EQ(int_of(p["pub_counts"][0], "count"), 4);
}

// topic= and channel= filters.
TEST_F(StatsScenario, Filters) {
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_TRUE(stats("topic=a"));
  EXPECT_EQ(names((*doc_)["topics"], "topic_name"), (std::vector<std::string>{"a"})) << stats_body_;
  EXPECT_EQ(names((*topic("a"))["channels"], "channel_name"), (std::vector<std::string>{"y", "z"}));

  // A topic that does not exist: Go returns its zero Stats, so producers are
  // null too although a producer is connected.
  ASSERT_TRUE(stats("topic=nosuch"));
  EXPECT_NE(stats_body_.find(R"("topics":null)"), std::string::npos) << stats_body_;
  EXPECT_TRUE((*doc_)["topics"].IsNull());
  EXPECT_TRUE((*doc_)["producers"].IsNull()) << stats_body_;

  ASSERT_TRUE(stats("topic=a&channel=z"));
  EXPECT_EQ(names((*doc_)["topics"], "topic_name"), (std::vector<std::string>{"a"})) << stats_body_;
  EXPECT_EQ(names((*topic("a"))["channels"], "channel_name"), (std::vector<std::string>{"z"}))
      << stats_body_;

  // channel= alone: topics without such a channel are left out.
  ASSERT_TRUE(stats("channel=y"));
  EXPECT_EQ(names((*doc_)["topics"], "topic_name"), (std::vector<std::string>{"a"})) << stats_body_;
  EXPECT_EQ(names((*topic("a"))["channels"], "channel_name"), (std::vector<std::string>{"y"}))
      << stats_body_;

  // The producer published to a only; filtered on a, its entry is there.
  producer_.pub("b", "pb");
  ASSERT_TRUE(got_response(producer_, "OK"));
  ASSERT_TRUE(stats("topic=b"));
  ASSERT_TRUE((*doc_)["producers"].IsArray() && (*doc_)["producers"].Size() == 1) << stats_body_;
  auto& pc = (*doc_)["producers"][0]["pub_counts"];
  ASSERT_TRUE(pc.IsArray() && pc.Size() == 1) << "only the filtered topic's entry: " << stats_body_;
  EXPECT_EQ(str_of(pc[0], "topic"), "b");
  EXPECT_EQ(int_of(pc[0], "count"), 1);
}

// include_clients=false: clients and producers null, client_count still set;
// include_mem=false: no memory key.
TEST_F(StatsScenario, IncludeClientsAndMem) {
  if (IsSkipped() || HasFatalFailure()) return;
  for (const char* v : {"false", "0"}) {
    SCOPED_TRACE(v);
    ASSERT_TRUE(stats(std::string("include_clients=") + v));
    EXPECT_EQ(join(keys_of(*doc_)), "version,health,start_time,topics,memory,producers");
    EXPECT_TRUE((*doc_)["producers"].IsNull()) << stats_body_;
    auto* y = channel("a", "y");
    ASSERT_NE(y, nullptr) << stats_body_;
    EXPECT_TRUE((*y)["clients"].IsNull()) << stats_body_;
    EXPECT_EQ(int_of(*y, "client_count"), 1);
    EXPECT_EQ(join(keys_of(*y)), kChannelKeys);

    ASSERT_TRUE(stats(std::string("include_mem=") + v));
    EXPECT_EQ(join(keys_of(*doc_)), "version,health,start_time,topics,producers") << stats_body_;
    EXPECT_TRUE((*doc_)["producers"].IsArray());
  }
  for (const char* v : {"true", "1"}) {
    ASSERT_TRUE(stats(std::string("include_clients=") + v + "&include_mem=" + v));
    EXPECT_EQ(join(keys_of(*doc_)), "version,health,start_time,topics,memory,producers");
    EXPECT_TRUE((*channel("a", "y"))["clients"].IsArray());
  }
}

// Text format (human use): header, health, sections.
TEST_F(StatsScenario, TextFormat) {
  if (IsSkipped() || HasFatalFailure()) return;
  for (const char* q : {"/stats", "/stats?format=text"}) {
    auto r = get(q);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->describe();
    EXPECT_EQ(r->header("x-nsq-content-type"), kV1Header) << r->describe();
    EXPECT_EQ(r->body.rfind("nsqd v1.3.0", 0), 0u) << r->body;
    EXPECT_NE(r->body.find("Health: OK"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("Memory:"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("Topics:"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("[a "), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("[y "), std::string::npos) << r->body;
    EXPECT_NE(r->body.find("Producers:"), std::string::npos) << r->body;
  }
  auto r = get("/stats?include_mem=false&topic=nosuch");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.rfind("nsqd v1.3.0", 0), 0u) << r->body;
  EXPECT_EQ(r->body.find("Memory:"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("Topics: None"), std::string::npos) << r->body;
}

// timeout_count, and message counts that do not count redeliveries at the channel.
TEST_F(HttpStatsTest, TimeoutCounted) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 1, R"({"msg_timeout":1000})");
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t", "slow"), "OK"));
  auto m = read_message(c);
  ASSERT_TRUE(m);
  auto m2 = read_message(c, 5000ms);
  ASSERT_TRUE(m2) << "not redelivered after msg_timeout";
  EXPECT_EQ(m2->attempts, 2);
  ASSERT_TRUE(stats("topic=t"));
  auto* ch = channel("t", "c");
  ASSERT_NE(ch, nullptr) << stats_body_;
  EXPECT_EQ(int_of(*ch, "timeout_count"), 1) << stats_body_;
  EXPECT_EQ(int_of(*ch, "requeue_count"), 0) << stats_body_;
  EXPECT_EQ(int_of(*ch, "message_count"), 1) << stats_body_;
  EXPECT_EQ(int_of(*ch, "in_flight_count"), 1) << stats_body_;
  auto& cl = (*ch)["clients"][0];
  EXPECT_EQ(int_of(cl, "message_count"), 2) << stats_body_;
  EXPECT_EQ(int_of(cl, "in_flight_count"), 1) << stats_body_;
  c.fin(m2->id);
  ASSERT_TRUE(stats_eventually([&] {
    auto* x = channel("t", "c");
    return x && int_of((*x)["clients"][0], "finish_count") == 1;
  })) << stats_body_;
  EXPECT_EQ(int_of(*channel("t", "c"), "in_flight_count"), 0);
}

// A connection that only subscribes is not a producer; no topics → producers [] or null, topics not
// null.
TEST_F(HttpStatsTest, NoProducersWithoutTcpPublish) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 1);
  ASSERT_TRUE(is_v1_ok(post("/pub?topic=t", "x"), "OK"));
  ASSERT_TRUE(is_v1_ok(post("/mpub?topic=t", "y\nz"), "OK"));
  ASSERT_TRUE(read_message(c));
  ASSERT_TRUE(stats());
  // Go appends producers to a nil slice: null, never [].
  EXPECT_TRUE((*doc_)["producers"].IsNull())
      << "HTTP publishers or consumers listed: " << stats_body_;
  EXPECT_EQ(int_of(*topic("t"), "message_count"), 3);
}

// A connection that subscribes and publishes: a producer whose entry has the
// in-flight count of its channel entry; under a topic filter its pub_counts
// (in the channel's client list and in producers) name only that topic, and
// are left out (the text page then shows it as a consumer) when it never
// published to it.
TEST_F(HttpStatsTest, SubscriberThatPublishes) {
  start_http();
  if (IsSkipped() || HasFatalFailure()) return;
  auto c = consumer("t", "c", 0, R"({"client_id":"both","hostname":"hb","user_agent":"ub"})");
  c.pub("t", "m1");
  ASSERT_TRUE(got_response(c, "OK"));
  c.pub("u", "m2");
  ASSERT_TRUE(got_response(c, "OK"));
  c.rdy(5);
  ASSERT_TRUE(read_message(c));
  ASSERT_TRUE(stats_eventually([&] {
    auto* ch = channel("t", "c");
    return ch && int_of(*ch, "in_flight_count") == 1;
  })) << stats_body_;

  ASSERT_TRUE((*doc_)["producers"].IsArray() && (*doc_)["producers"].Size() == 1) << stats_body_;
  EXPECT_EQ(int_of((*doc_)["producers"][0], "in_flight_count"), 1) << stats_body_;
  EXPECT_EQ((*doc_)["producers"][0]["pub_counts"].Size(), 2u) << stats_body_;

  ASSERT_TRUE(stats("topic=t"));
  auto& p = (*doc_)["producers"][0];
  EXPECT_EQ(int_of(p, "in_flight_count"), 1) << stats_body_;
  ASSERT_TRUE(p["pub_counts"].IsArray() && p["pub_counts"].Size() == 1) << stats_body_;
  EXPECT_EQ(str_of(p["pub_counts"][0], "topic"), "t");
  auto& cl = (*channel("t", "c"))["clients"][0];
  ASSERT_TRUE(cl["pub_counts"].IsArray() && cl["pub_counts"].Size() == 1) << stats_body_;
  EXPECT_EQ(str_of(cl["pub_counts"][0], "topic"), "t");

  // Filtered on a topic it never published to: no pub_counts key at all,
  // still listed, with its channel's in-flight count.
  ASSERT_TRUE(is_v1_ok(post("/topic/create?topic=v"), ""));
  ASSERT_TRUE(stats("topic=v"));
  ASSERT_TRUE((*doc_)["producers"].IsArray() && (*doc_)["producers"].Size() == 1) << stats_body_;
  EXPECT_FALSE((*doc_)["producers"][0].HasMember("pub_counts")) << stats_body_;
  EXPECT_EQ(int_of((*doc_)["producers"][0], "in_flight_count"), 1) << stats_body_;

  auto text = get("/stats?topic=v&include_mem=false");
  ASSERT_TRUE(text);
  EXPECT_NE(text->body.find("] state: 3 inflt: 1    rdy: 5    fin: 0"), std::string::npos)
      << "a consumer line under Producers: " << text->body;
  text = get("/stats?topic=u&include_mem=false");
  ASSERT_TRUE(text);
  EXPECT_NE(text->body.find("] msgs: 1        topics: u=1 connected: "), std::string::npos)
      << text->body;
}

}  // namespace
}  // namespace nsq::integration
