// nsqd's GET /stats, ours against Go nsqd v1.3.0 (issue 17): the same TCP
// clients (a publisher, a subscriber that also publishes, a pure consumer)
// and HTTP publishes on both, then /stats in JSON and text with every
// filter, compared after what legitimately differs is normalised: ports and
// remote addresses, connect_ts, start_time, uptime and connection ages, the
// build line, memory figures. Go lists channel clients and producers in map
// order (random), so both are sorted by client_id (JSON) or line (text), and
// pub_counts by topic.
//
// Each client publishes to a single topic: without a topic filter Go v1.3.0
// reports only one (randomly chosen) of a client's pub_counts, ours all of
// them; the topic filter case with several topics is compared separately.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "differential/diff_harness.h"
#include "testutil/http_client.h"
#include "testutil/raw_client.h"

namespace nsq::differential {
namespace {

using rapidjson::Value;

std::string str_member(const Value& v, const char* k) {
  if (!v.IsObject()) return {};
  auto it = v.FindMember(k);
  return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : std::string();
}

// Rewrites the parsed /stats document in place: volatile values replaced by
// placeholders, Go's unordered lists sorted.
void normalise(Value& v, rapidjson::Document::AllocatorType& a, std::string_view key = {}) {
  if (v.IsObject()) {
    for (auto& m : v.GetObject()) {
      const std::string_view k(m.name.GetString(), m.name.GetStringLength());
      if (k == "remote_address") {
        m.value.SetString("<addr>", a);
      } else if (k == "connect_ts" || k == "start_time") {
        m.value.SetInt(0);
      } else if (k == "memory" && m.value.IsObject()) {
        for (auto& f : m.value.GetObject()) f.value.SetInt(0);
      } else {
        normalise(m.value, a, k);
      }
    }
    return;
  }
  if (!v.IsArray()) return;
  for (auto& e : v.GetArray()) normalise(e, a);
  const char* sort_key = nullptr;
  if (key == "clients" || key == "producers") sort_key = "client_id";
  if (key == "pub_counts") sort_key = "topic";
  if (sort_key == nullptr) return;
  std::sort(v.Begin(), v.End(), [&](const Value& x, const Value& y) {
    return str_member(x, sort_key) < str_member(y, sort_key);
  });
}

// `answer` is get()'s "<status>\n<body>".
std::string normalise_json(const std::string& answer) {
  const auto nl = answer.find('\n');
  if (nl == std::string::npos) return answer;
  const std::string body = answer.substr(nl + 1);
  rapidjson::Document d;
  d.Parse(body.c_str(), body.size());
  if (d.HasParseError()) return "<unparsable> " + body;
  normalise(d, d.GetAllocator());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  return answer.substr(0, nl + 1) + buf.GetString();
}

// The text page line by line: the build line, start_time, uptime, memory
// figures and connection ages blanked, a client's port replaced (keeping
// Go's %-21s padding, ports being 5 digits on both), and each run of client
// lines sorted.
std::string normalise_text(const std::string& body) {
  static const std::regex port(R"(^(\s*\[V2 [^:\]]*:)\d+ )");
  static const std::regex connected(R"( connected: \S+$)");
  static const std::regex memory(R"(^(   \S+\s*\t)\d+$)");
  std::vector<std::string> lines;
  std::istringstream in(body);
  std::string line;
  std::size_t run = 0;  // first line of the current run of client lines
  while (std::getline(in, line)) {
    if (line.starts_with("nsqd v")) {
      line = line.substr(0, line.find(" (built"));
    } else if (line.starts_with("start_time ")) {
      line = "start_time X";
    } else if (line.starts_with("uptime ")) {
      line = "uptime X";
    }
    line = std::regex_replace(line, memory, "$1X");
    const bool client = std::regex_search(line, port);
    if (client) {
      line = std::regex_replace(line, port, "$1PORT ");
      line = std::regex_replace(line, connected, " connected: X");
    }
    if (!client) run = lines.size() + 1;
    lines.push_back(line);
    if (client) std::sort(lines.begin() + static_cast<std::ptrdiff_t>(run), lines.end());
  }
  std::string out;
  for (const auto& l : lines) out += l + '\n';
  return out;
}

std::string get(int http_port, const std::string& target) {
  auto r = testutil::http_once(http_port, "GET", target);
  if (!r) return "<no answer>";
  return std::to_string(r->status) + "\n" + r->body;
}

bool ok(testutil::RawClient& c) {
  auto r = c.read_skip_heartbeats(ms(2000));
  return r.status == testutil::RawClient::ReadStatus::frame && r.frame.type == FrameType::response;
}

class StatsDiff : public DifferentialTest {
 protected:
  // The same clients on one broker; they stay connected in `clients`.
  void populate(Broker& b, std::vector<testutil::RawClient>& clients) {
    SCOPED_TRACE(b.name);
    clients.resize(3);
    auto& pub = clients[0];
    auto& both = clients[1];
    auto& cons = clients[2];
    for (auto* c : {&pub, &both, &cons}) {
      ASSERT_TRUE(c->connect(b.tcp_port()));
      ASSERT_TRUE(c->magic());
    }
    ASSERT_TRUE(pub.identify(R"({"client_id":"a","hostname":"ha","user_agent":"ua"})"));
    ASSERT_TRUE(ok(pub));
    ASSERT_TRUE(pub.pub("t1", "m1"));
    ASSERT_TRUE(ok(pub));
    ASSERT_TRUE(pub.pub("t1", "m2"));
    ASSERT_TRUE(ok(pub));

    // Subscribes to t1/c, publishes to t2 only, takes both messages of t1.
    ASSERT_TRUE(both.identify(R"({"client_id":"b","hostname":"hb","user_agent":"ub"})"));
    ASSERT_TRUE(ok(both));
    ASSERT_TRUE(both.sub("t1", "c"));
    ASSERT_TRUE(ok(both));
    ASSERT_TRUE(both.pub("t2", "xyz"));
    ASSERT_TRUE(ok(both));
    ASSERT_TRUE(both.rdy(5));
    for (int i = 0; i < 2; ++i) {
      auto r = both.read_skip_heartbeats(ms(3000));
      ASSERT_EQ(r.status, testutil::RawClient::ReadStatus::frame) << r.describe();
      ASSERT_EQ(r.frame.type, FrameType::message) << r.describe();
    }

    // A consumer only, on t1/c (RDY 0) and another channel of t2 is not there.
    ASSERT_TRUE(cons.identify(R"({"client_id":"c","hostname":"hc","user_agent":"uc"})"));
    ASSERT_TRUE(ok(cons));
    ASSERT_TRUE(cons.sub("t1", "c"));
    ASSERT_TRUE(ok(cons));

    // HTTP publishers are not producers.
    auto r = testutil::http_once(b.http_port(), "POST", "/pub?topic=t3", "h");
    ASSERT_TRUE(r && r->status == 200);
  }

  void expect_same_stats(const std::vector<std::string>& queries) {
    for (const auto& q : queries) {
      for (const bool json : {true, false}) {
        std::string target = "/stats?" + q;
        if (json) target += std::string(q.empty() ? "" : "&") + "format=json";
        SCOPED_TRACE(target);
        std::string theirs = get(go().http_port(), target);
        std::string mine = get(ours().http_port(), target);
        if (json) {
          EXPECT_EQ(normalise_json(mine), normalise_json(theirs)) << "ours:\n"
                                                                  << mine << "\nGo's:\n"
                                                                  << theirs;
        } else {
          EXPECT_EQ(normalise_text(mine), normalise_text(theirs)) << "ours:\n"
                                                                  << mine << "\nGo's:\n"
                                                                  << theirs;
        }
      }
    }
  }
};

TEST_F(StatsDiff, EmptyBroker) {
  if (!start_both()) return;
  expect_same_stats({"include_mem=false", "", "topic=nope&include_mem=false",
                     "include_clients=false&include_mem=false"});
}

TEST_F(StatsDiff, ProducersConsumersAndFilters) {
  if (!start_both()) return;
  std::vector<testutil::RawClient> go_clients, our_clients;
  populate(go(), go_clients);
  if (HasFatalFailure()) return;
  populate(ours(), our_clients);
  if (HasFatalFailure()) return;
  expect_same_stats({
      "",
      "include_mem=false",
      "topic=t1&include_mem=false",
      "topic=t2&include_mem=false",
      "topic=t3&include_mem=false",
      "topic=nope&include_mem=false",
      "channel=c&include_mem=false",
      "channel=nope&include_mem=false",
      "topic=t1&channel=c&include_mem=false",
      "topic=t2&channel=c&include_mem=false",
      "include_clients=false&include_mem=false",
      "topic=t1&include_clients=false&include_mem=false",
  });
}

// A client that published to several topics: filtered on one of them its
// pub_counts name only that topic, filtered on another topic none (the
// field is left out, and the text page shows it as a consumer).
TEST_F(StatsDiff, PubCountsUnderTopicFilter) {
  if (!start_both()) return;
  std::vector<testutil::RawClient> clients(2);
  for (auto* b : {&go(), &ours()}) {
    SCOPED_TRACE(b->name);
    auto& c = clients[b == &go() ? 0 : 1];
    ASSERT_TRUE(c.connect(b->tcp_port()));
    ASSERT_TRUE(c.magic());
    ASSERT_TRUE(c.identify(R"({"client_id":"m","hostname":"hm","user_agent":"um"})"));
    ASSERT_TRUE(ok(c));
    for (const char* t : {"x1", "x2", "x2"}) {
      ASSERT_TRUE(c.pub(t, "body"));
      ASSERT_TRUE(ok(c));
    }
    auto r = testutil::http_once(b->http_port(), "POST", "/topic/create?topic=x3");
    ASSERT_TRUE(r && r->status == 200);
  }
  expect_same_stats({"topic=x1&include_mem=false", "topic=x2&include_mem=false",
                     "topic=x3&include_mem=false", "topic=x2&channel=none&include_mem=false"});
}

}  // namespace
}  // namespace nsq::differential
