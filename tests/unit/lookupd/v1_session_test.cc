#include "v1_session.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nsq::lookupd {
namespace {

using namespace std::chrono_literals;

const Time kNow = Time{} + std::chrono::hours(24 * 365 * 50);

// Splits "[int32 len][data]..." into the data parts.
std::vector<std::string> responses(const std::string& out) {
  std::vector<std::string> r;
  std::size_t i = 0;
  while (i + 4 <= out.size()) {
    const auto b = [&](std::size_t k) {
      return static_cast<std::uint32_t>(static_cast<unsigned char>(out[i + k]));
    };
    const std::size_t n = b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
    r.push_back(out.substr(i + 4, n));
    i += 4 + n;
  }
  EXPECT_EQ(i, out.size());
  return r;
}

std::string identify(const std::string& json) {
  std::string s = "IDENTIFY\n";
  const auto n = static_cast<std::uint32_t>(json.size());
  s += static_cast<char>(n >> 24);
  s += static_cast<char>(n >> 16);
  s += static_cast<char>(n >> 8);
  s += static_cast<char>(n);
  return s + json;
}

const std::string kGoodIdentify =
    R"({"broadcast_address":"bcast","hostname":"h","tcp_port":4150,"http_port":4151,"version":"1.3.0"})";

struct Fixture : ::testing::Test {
  RegistrationDb db;
  ServerIdentity identity{"lookupd-host", "lookupd-os", 4160, 4161};
  std::vector<std::string> logs;

  std::unique_ptr<V1Session> session(const std::string& remote = "1.2.3.4:5") {
    return std::make_unique<V1Session>(
        db, identity, remote, [this](LogLevel, const std::string& l) { logs.push_back(l); });
  }
  // Feeds `in` (after the magic) and returns the responses.
  std::vector<std::string> run(V1Session& s, const std::string& in) {
    std::string out;
    s.put(in, kNow, out);
    return responses(out);
  }
};

TEST_F(Fixture, BadMagic) {
  auto s = session();
  EXPECT_EQ(run(*s, "  V2PING\n"), (std::vector<std::string>{"E_BAD_PROTOCOL"}));
  EXPECT_TRUE(s->closed());
}

TEST_F(Fixture, PingBeforeIdentifyAndByteByByte) {
  auto s = session();
  std::string out;
  for (char c : std::string("  V1PING\r\nPING\n")) s->put(std::string_view(&c, 1), kNow, out);
  EXPECT_EQ(responses(out), (std::vector<std::string>{"OK", "OK"}));
  EXPECT_FALSE(s->closed());
}

TEST_F(Fixture, IdentifyRegisterUnregister) {
  auto s = session();
  auto r = run(*s, "  V1" + identify(kGoodIdentify));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(
      r[0],
      R"({"broadcast_address":"lookupd-host","hostname":"lookupd-os","http_port":4161,"tcp_port":4160,"version":"1.3.0"})");
  EXPECT_EQ(db.find_producers("client", "", "").size(), 1u);
  const auto p = db.find_producers("client", "", "")[0];
  EXPECT_EQ(p.peer->remote_address, "1.2.3.4:5");
  EXPECT_EQ(p.peer->broadcast_address, "bcast");
  EXPECT_EQ(p.last_update, kNow);

  r = run(*s, "REGISTER t c\nREGISTER t c\nREGISTER u\n");
  EXPECT_EQ(r, (std::vector<std::string>{"OK", "OK", "OK"}));
  EXPECT_EQ(db.find_producers("channel", "t", "c").size(), 1u);
  EXPECT_EQ(db.find_producers("topic", "t", "").size(), 1u);
  EXPECT_EQ(db.find_producers("topic", "u", "").size(), 1u);

  EXPECT_EQ(run(*s, "UNREGISTER t c\n"), (std::vector<std::string>{"OK"}));
  EXPECT_TRUE(db.find_producers("channel", "t", "c").empty());
  EXPECT_EQ(db.find_registrations("channel", "t", "c").size(), 1u);  // key kept

  run(*s, "REGISTER t c2\n");
  EXPECT_EQ(run(*s, "UNREGISTER t\n"), (std::vector<std::string>{"OK"}));
  EXPECT_TRUE(db.find_producers("channel", "t", "c2").empty());
  EXPECT_TRUE(db.find_producers("topic", "t", "").empty());
  EXPECT_EQ(db.find_registrations("topic", "t", "").size(), 1u);

  s->on_close();
  EXPECT_TRUE(db.find_producers("client", "", "").empty());
  EXPECT_TRUE(db.find_producers("topic", "u", "").empty());
  EXPECT_EQ(db.find_registrations("topic", "u", "").size(), 1u);
}

TEST_F(Fixture, EphemeralKeysGoWithTheLastProducer) {
  auto a = session("a:1"), b = session("b:1");
  run(*a, "  V1" + identify(kGoodIdentify) + "REGISTER t c#ephemeral\nREGISTER e#ephemeral\n");
  run(*b, "  V1" + identify(kGoodIdentify) + "REGISTER t c#ephemeral\n");
  run(*a, "UNREGISTER t c#ephemeral\n");
  EXPECT_EQ(db.find_registrations("channel", "t", "c#ephemeral").size(), 1u);
  run(*b, "UNREGISTER t c#ephemeral\n");
  EXPECT_TRUE(db.find_registrations("channel", "t", "c#ephemeral").empty());
  run(*a, "UNREGISTER e#ephemeral\n");
  EXPECT_TRUE(db.find_registrations("topic", "e#ephemeral", "").empty());
}

TEST_F(Fixture, PingRefreshesLastUpdate) {
  auto s = session();
  run(*s, "  V1" + identify(kGoodIdentify));
  std::string out;
  s->put("PING\n", kNow + 20s, out);
  EXPECT_EQ(db.find_producers("client", "", "")[0].last_update, kNow + 20s);
}

struct ErrorCase {
  std::string input;
  std::string error;
};

TEST_F(Fixture, EveryErrorIsFatal) {
  const std::vector<ErrorCase> cases = {
      {"FOO\n", "E_INVALID invalid command FOO"},
      {"\n", "E_INVALID invalid command "},
      {"ping\n", "E_INVALID invalid command ping"},
      {"REGISTER t\n", "E_INVALID client must IDENTIFY"},
      {"UNREGISTER t\n", "E_INVALID client must IDENTIFY"},
      {identify(kGoodIdentify) + "IDENTIFY\n", "E_INVALID cannot IDENTIFY again"},
      {identify(kGoodIdentify) + "REGISTER\n", "E_INVALID REGISTER insufficient number of params"},
      {identify(kGoodIdentify) + "UNREGISTER\n",
       "E_INVALID UNREGISTER insufficient number of params"},
      {identify(kGoodIdentify) + "REGISTER a*b\n",
       "E_BAD_TOPIC REGISTER topic name 'a*b' is not valid"},
      {identify(kGoodIdentify) + "UNREGISTER t c!\n",
       "E_BAD_CHANNEL UNREGISTER channel name 'c!' is not valid"},
      {identify("not json"), "E_BAD_BODY IDENTIFY failed to decode JSON body"},
      {identify(""), "E_BAD_BODY IDENTIFY failed to decode JSON body"},
      {identify("[1]"), "E_BAD_BODY IDENTIFY failed to decode JSON body"},
      {identify(R"({"tcp_port":"4150"})"), "E_BAD_BODY IDENTIFY failed to decode JSON body"},
      {identify(R"({"tcp_port":4150.5})"), "E_BAD_BODY IDENTIFY failed to decode JSON body"},
      {identify(R"({"version":"1"} x)"), "E_BAD_BODY IDENTIFY failed to decode JSON body"},
      {identify("{}"), "E_BAD_BODY IDENTIFY missing fields"},
      {identify("null"), "E_BAD_BODY IDENTIFY missing fields"},
      {identify(R"({"broadcast_address":"b","tcp_port":1,"http_port":0,"version":"v"})"),
       "E_BAD_BODY IDENTIFY missing fields"},
      {std::string("IDENTIFY\n\xff\xff\xff\xff", 13), "E_BAD_BODY IDENTIFY invalid body size -1"},
      {std::string("IDENTIFY\n\x00\x20\x00\x00", 13),
       "E_BAD_BODY IDENTIFY invalid body size 2097152"},
  };
  for (const auto& c : cases) {
    RegistrationDb fresh;
    V1Session s(fresh, identity, "x:1", {});
    std::string out;
    s.put("  V1" + c.input + "PING\n", kNow, out);
    auto r = responses(out);
    ASSERT_FALSE(r.empty()) << c.input;
    EXPECT_EQ(r.back(), c.error) << c.input;
    EXPECT_TRUE(s.closed()) << c.input;
  }
}

TEST_F(Fixture, IdentifyKeysAreCaseInsensitiveAndRemoteAddressIgnored) {
  auto s = session();
  auto r = run(*s, "  V1" + identify(R"({"Broadcast_Address":"B","TCP_PORT":1,"http_port":2,)"
                                     R"("VERSION":"v","remote_address":"spoof","extra":[1,{}]})"));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].front(), '{');
  const auto p = db.find_producers("client", "", "")[0];
  EXPECT_EQ(p.peer->broadcast_address, "B");
  EXPECT_EQ(p.peer->remote_address, "1.2.3.4:5");
}

TEST_F(Fixture, EofInsideIdentify) {
  auto s = session();
  std::string out;
  s->put(std::string("  V1IDENTIFY\n\x00\x00", 15), kNow, out);
  s->on_eof(out);
  EXPECT_EQ(responses(out),
            (std::vector<std::string>{"E_BAD_BODY IDENTIFY failed to read body size"}));
  auto t = session("y:1");
  out.clear();
  t->put(std::string("  V1IDENTIFY\n\x00\x00\x00\x09{}", 19), kNow, out);
  t->on_eof(out);
  EXPECT_EQ(responses(out), (std::vector<std::string>{"E_BAD_BODY IDENTIFY failed to read body"}));
}

TEST_F(Fixture, LogsLikeGo) {
  auto s = session();
  run(*s, "  V1" + identify(kGoodIdentify) + "REGISTER t c\n");
  std::vector<std::string> want = {
      "CLIENT(1.2.3.4:5): desired protocol magic '  V1'",
      "CLIENT(1.2.3.4:5): IDENTIFY Address:bcast TCP:4150 HTTP:4151 Version:1.3.0",
      "DB: client(1.2.3.4:5) REGISTER category:client key: subkey:",
      "DB: client(1.2.3.4:5) REGISTER category:channel key:t subkey:c",
      "DB: client(1.2.3.4:5) REGISTER category:topic key:t subkey:",
  };
  EXPECT_EQ(logs, want);
}

}  // namespace
}  // namespace nsq::lookupd
