// nsqd and nsqlookupd together (lookupd.md): several real nsqlookupd and
// nsqd processes on loopback with ephemeral ports. nsqds register what they
// create and delete (§4), lookupd answers /lookup, /topics, /channels, /nodes
// and /debug from that (§2, §3), forgets closed connections, hides inactive
// and tombstoned producers, and speaks TCP protocol V1 (§1) to anyone.
//
// Registration is asynchronous: every check of a state another process
// produces polls lookupd's HTTP API until a deadline (eventually()).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <map>
#include <set>

#include "integration/http_harness.h"

namespace nsq::integration {
namespace {

using testutil::NsqlookupdProcess;
using testutil::ServerProcess;
using Clock = std::chrono::steady_clock;
using Strings = std::set<std::string>;

// Bound for a registration to show up (a few round trips of the lookup loop).
constexpr ms kRegister{10000};
// nsqd pings every 15 s (§4). After a lookupd dies, the first PING finds the
// connection dead and closes it; the next command - at the latest the PING
// 15 s after that - reconnects: up to 30 s, plus a margin.
constexpr ms kReconnect{40000};

// ---------------------------------------------------------------------------
// A raw TCP protocol V1 client (lookupd.md §1): responses are
// [int32 big-endian length][data], errors are data starting with "E_".

class V1Client {
 public:
  enum class Status { data, timeout, closed, error };
  struct Reply {
    Status status = Status::error;
    std::string data;
    std::string describe() const {
      switch (status) {
        case Status::data:
          return "'" + data + "'";
        case Status::timeout:
          return "timeout";
        case Status::closed:
          return "connection closed";
        case Status::error:
          return "read error: " + data;
      }
      return "?";
    }
  };

  V1Client() = default;
  ~V1Client() { close(); }
  V1Client(const V1Client&) = delete;
  V1Client& operator=(const V1Client&) = delete;

  bool connect(int port) {
    close();
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return false;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close();
      return false;
    }
    return true;
  }

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buf_.clear();
    eof_ = false;
  }

  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  bool magic() { return send("  V1"); }
  bool line(std::string_view l) { return send(std::string(l) + "\n"); }
  bool identify(std::string_view json) {
    return send("IDENTIFY\n" + be32(static_cast<uint32_t>(json.size())) + std::string(json));
  }

  Reply read(ms timeout) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
      if (buf_.size() >= 4) {
        uint32_t n = (uint32_t(uint8_t(buf_[0])) << 24) | (uint32_t(uint8_t(buf_[1])) << 16) |
                     (uint32_t(uint8_t(buf_[2])) << 8) | uint32_t(uint8_t(buf_[3]));
        if (n > (1u << 20)) return {Status::error, "response length " + std::to_string(n)};
        if (buf_.size() >= 4 + n) {
          Reply r{Status::data, buf_.substr(4, n)};
          buf_.erase(0, 4 + n);
          return r;
        }
      }
      if (eof_) return {Status::closed, {}};
      auto left = std::chrono::duration_cast<ms>(deadline - Clock::now()).count();
      if (left <= 0) return {Status::timeout, {}};
      pollfd p{fd_, POLLIN, 0};
      int rc = ::poll(&p, 1, static_cast<int>(left));
      if (rc < 0 && errno == EINTR) continue;
      if (rc == 0) return {Status::timeout, {}};
      char tmp[4096];
      ssize_t got = ::recv(fd_, tmp, sizeof tmp, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        eof_ = true;  // EOF or reset: the peer is gone either way
        continue;
      }
      buf_.append(tmp, static_cast<std::size_t>(got));
    }
  }

  // True once the peer closed the connection within timeout (replies before are dropped).
  bool wait_closed(ms timeout) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
      auto left = std::chrono::duration_cast<ms>(deadline - Clock::now());
      auto r = read(std::max(left, ms(0)));
      if (r.status == Status::closed) return true;
      if (r.status != Status::data) return false;
    }
  }

 private:
  int fd_ = -1;
  std::string buf_;
  bool eof_ = false;
};

::testing::AssertionResult v1_reply(V1Client& c, const std::string& want) {
  auto r = c.read(kReply);
  if (r.status == V1Client::Status::data && r.data == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "wanted '" << want << "', got " << r.describe();
}

// Error `want` (exactly, or as a prefix if `prefix`), then lookupd closes the connection (§1: every
// error is fatal).
::testing::AssertionResult v1_fatal(V1Client& c, const std::string& want, bool prefix = false) {
  auto r = c.read(kReply);
  bool match =
      r.status == V1Client::Status::data && (prefix ? r.data.rfind(want, 0) == 0 : r.data == want);
  if (!match)
    return ::testing::AssertionFailure() << "wanted error " << (prefix ? "starting with '" : "'")
                                         << want << "', got " << r.describe();
  if (!c.wait_closed(kReply))
    return ::testing::AssertionFailure() << "got '" << r.data << "' but the connection stayed open";
  return ::testing::AssertionSuccess();
}

std::string identify_json(int tcp_port, int http_port, const std::string& hostname = "rawclient") {
  return R"({"broadcast_address":"127.0.0.1","hostname":")" + hostname + R"(","http_port":)" +
         std::to_string(http_port) + R"(,"tcp_port":)" + std::to_string(tcp_port) +
         R"(,"version":"1.3.0"})";
}

// ---------------------------------------------------------------------------
// JSON from lookupd's (or nsqd's) HTTP API.

struct Json {
  int status = 0;
  std::string body;
  std::unique_ptr<rapidjson::Document> doc;
  bool ok() const { return status == 200 && doc && !doc->HasParseError(); }
  std::string describe() const { return std::to_string(status) + " " + body; }
};

Json http_json(int port, const std::string& method, const std::string& target,
               const std::string& body = {}) {
  Json j;
  auto r = testutil::http_once(port, method, target, body);
  if (!r) {
    j.body = "(no response)";
    return j;
  }
  j.status = r->status;
  j.body = r->body;
  j.doc = std::make_unique<rapidjson::Document>();
  j.doc->Parse(j.body.c_str(), j.body.size());
  return j;
}

std::string enc(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '#')
      out += "%23";
    else
      out += ch;
  }
  return out;
}

std::string show_set(const Strings& s) {
  std::string out = "{";
  for (auto& x : s) out += (out.size() > 1 ? "," : "") + x;
  return out + "}";
}

// "<broadcast_address>:<tcp_port>/<http_port>" of a producer object.
std::string producer_key(const rapidjson::Value& p) {
  if (!p.IsObject()) return "(not an object)";
  auto str = [&](const char* k) -> std::string {
    return p.HasMember(k) && p[k].IsString() ? p[k].GetString() : std::string("?");
  };
  auto num = [&](const char* k) -> std::string {
    return p.HasMember(k) && p[k].IsInt() ? std::to_string(p[k].GetInt()) : std::string("?");
  };
  return str("broadcast_address") + ":" + num("tcp_port") + "/" + num("http_port");
}

std::string key_of(ServerProcess* n) {
  return "127.0.0.1:" + std::to_string(n->tcp_port()) + "/" + std::to_string(n->http_port());
}
std::string raw_key(int tcp_port, int http_port) {
  return "127.0.0.1:" + std::to_string(tcp_port) + "/" + std::to_string(http_port);
}

Strings keys_of_nsqds(std::initializer_list<ServerProcess*> ns) {
  Strings s;
  for (auto* n : ns) s.insert(key_of(n));
  return s;
}

// Producer keys of a JSON array; duplicates are reported as "dup:<key>".
Strings producer_set(const rapidjson::Value& arr) {
  Strings s;
  if (!arr.IsArray()) return {"(not an array)"};
  for (auto& p : arr.GetArray()) {
    auto k = producer_key(p);
    if (!s.insert(k).second) s.insert("dup:" + k);
  }
  return s;
}

Strings string_set(const rapidjson::Value& arr) {
  Strings s;
  if (!arr.IsArray()) return {"(not an array)"};
  for (auto& v : arr.GetArray()) {
    std::string x = v.IsString() ? v.GetString() : "(not a string)";
    if (!s.insert(x).second) s.insert("dup:" + x);
  }
  return s;
}

// ---------------------------------------------------------------------------
// Conditions on lookupd's HTTP API (lookupd.md §3).

// GET /lookup?topic=T: 200 with exactly these producers (and channels, if given).
::testing::AssertionResult lookup_is(ServerProcess* l, const std::string& topic,
                                     const Strings& producers,
                                     std::optional<Strings> channels = std::nullopt) {
  auto j = http_json(l->http_port(), "GET", "/lookup?topic=" + enc(topic));
  if (!j.ok() || !j.doc->IsObject() || !j.doc->HasMember("producers") ||
      !j.doc->HasMember("channels"))
    return ::testing::AssertionFailure() << "/lookup?topic=" << topic << ": " << j.describe();
  auto got = producer_set((*j.doc)["producers"]);
  if (got != producers)
    return ::testing::AssertionFailure()
           << "/lookup?topic=" << topic << " producers " << show_set(got) << ", wanted "
           << show_set(producers) << "; body " << j.body;
  if (channels) {
    auto ch = string_set((*j.doc)["channels"]);
    if (ch != *channels)
      return ::testing::AssertionFailure()
             << "/lookup?topic=" << topic << " channels " << show_set(ch) << ", wanted "
             << show_set(*channels) << "; body " << j.body;
  }
  return ::testing::AssertionSuccess();
}

// GET /lookup?topic=T: 404 TOPIC_NOT_FOUND.
::testing::AssertionResult lookup_not_found(ServerProcess* l, const std::string& topic) {
  auto j = http_json(l->http_port(), "GET", "/lookup?topic=" + enc(topic));
  if (j.status == 404 && j.body == R"({"message":"TOPIC_NOT_FOUND"})")
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "/lookup?topic=" << topic << ": " << j.describe() << " (wanted 404 TOPIC_NOT_FOUND)";
}

::testing::AssertionResult topics_are(ServerProcess* l, const Strings& want) {
  auto j = http_json(l->http_port(), "GET", "/topics");
  if (!j.ok() || !j.doc->IsObject() || !j.doc->HasMember("topics"))
    return ::testing::AssertionFailure() << "/topics: " << j.describe();
  auto got = string_set((*j.doc)["topics"]);
  if (got != want)
    return ::testing::AssertionFailure()
           << "/topics " << show_set(got) << ", wanted " << show_set(want);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult channels_are(ServerProcess* l, const std::string& topic,
                                        const Strings& want) {
  auto j = http_json(l->http_port(), "GET", "/channels?topic=" + enc(topic));
  if (!j.ok() || !j.doc->IsObject() || !j.doc->HasMember("channels"))
    return ::testing::AssertionFailure() << "/channels?topic=" << topic << ": " << j.describe();
  auto got = string_set((*j.doc)["channels"]);
  if (got != want)
    return ::testing::AssertionFailure()
           << "/channels?topic=" << topic << " " << show_set(got) << ", wanted " << show_set(want);
  return ::testing::AssertionSuccess();
}

// GET /nodes: exactly these producers.
::testing::AssertionResult nodes_are(ServerProcess* l, const Strings& want) {
  auto j = http_json(l->http_port(), "GET", "/nodes");
  if (!j.ok() || !j.doc->IsObject() || !j.doc->HasMember("producers"))
    return ::testing::AssertionFailure() << "/nodes: " << j.describe();
  auto got = producer_set((*j.doc)["producers"]);
  if (got != want)
    return ::testing::AssertionFailure() << "/nodes producers " << show_set(got) << ", wanted "
                                         << show_set(want) << "; body " << j.body;
  return ::testing::AssertionSuccess();
}

// GET /nodes: producer `key` is registered for exactly these topics, with
// these tombstone flags (topic → tombstoned).
::testing::AssertionResult node_topics_are(ServerProcess* l, const std::string& key,
                                           const std::map<std::string, bool>& want) {
  auto j = http_json(l->http_port(), "GET", "/nodes");
  if (!j.ok() || !j.doc->IsObject() || !j.doc->HasMember("producers") ||
      !(*j.doc)["producers"].IsArray())
    return ::testing::AssertionFailure() << "/nodes: " << j.describe();
  for (auto& p : (*j.doc)["producers"].GetArray()) {
    if (producer_key(p) != key) continue;
    if (!p.HasMember("topics") || !p["topics"].IsArray() || !p.HasMember("tombstones") ||
        !p["tombstones"].IsArray() || p["topics"].Size() != p["tombstones"].Size())
      return ::testing::AssertionFailure()
             << "/nodes: bad topics/tombstones for " << key << ": " << j.body;
    std::map<std::string, bool> got;
    for (rapidjson::SizeType i = 0; i < p["topics"].Size(); ++i) {
      if (!p["topics"][i].IsString() || !p["tombstones"][i].IsBool())
        return ::testing::AssertionFailure() << "/nodes: bad entry for " << key << ": " << j.body;
      got[p["topics"][i].GetString()] = p["tombstones"][i].GetBool();
    }
    if (got != want)
      return ::testing::AssertionFailure() << "/nodes topics of " << key << " differ: " << j.body;
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "/nodes has no producer " << key << ": " << j.body;
}

// GET /debug: the producers of registration "channel:T:C" are exactly `want`
// (a key without producers does not appear at all).
::testing::AssertionResult channel_producers_are(ServerProcess* l, const std::string& topic,
                                                 const std::string& channel, const Strings& want) {
  auto j = http_json(l->http_port(), "GET", "/debug");
  if (!j.ok() || !j.doc->IsObject())
    return ::testing::AssertionFailure() << "/debug: " << j.describe();
  std::string k = "channel:" + topic + ":" + channel;
  Strings got;
  if (j.doc->HasMember(k.c_str())) got = producer_set((*j.doc)[k.c_str()]);
  if (got != want)
    return ::testing::AssertionFailure() << "/debug " << k << " producers " << show_set(got)
                                         << ", wanted " << show_set(want) << "; body " << j.body;
  return ::testing::AssertionSuccess();
}

// Polls `f` (returning an AssertionResult) every 50 ms until it succeeds or `timeout` passes.
template <class F>
::testing::AssertionResult eventually(F f, ms timeout = kRegister) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    ::testing::AssertionResult r = f();
    if (r) return r;
    if (Clock::now() >= deadline)
      return ::testing::AssertionFailure()
             << "still not true after " << timeout.count() << " ms: " << r.message();
    std::this_thread::sleep_for(50ms);
  }
}

int64_t since_ms(Clock::time_point t0) {
  return std::chrono::duration_cast<ms>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------------------

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto nsqd = testutil::nsqd_binary_path();
    if (nsqd.empty() || ::access(nsqd.c_str(), X_OK) != 0)
      GTEST_SKIP() << "nsqd binary not built: '" << nsqd << "'";
    auto lookupd = testutil::nsqlookupd_binary_path();
    if (lookupd.empty() || ::access(lookupd.c_str(), X_OK) != 0)
      GTEST_SKIP() << "nsqlookupd binary not built: '" << lookupd << "' (set NSQLOOKUPD_BINARY)";
  }

  void TearDown() override {
    // Every server must have survived the test and still shut down cleanly
    // on SIGTERM; nsqds first.
    for (auto& s : nsqds_) finish(*s->proc, s->expect_exit, "nsqd");
    for (auto& s : lookupds_) finish(*s->proc, s->expect_exit, "nsqlookupd");
    if (HasFailure()) {
      for (std::size_t i = 0; i < lookupds_.size(); ++i)
        std::cerr << "--- nsqlookupd #" << i << " log tail ---\n"
                  << tail(lookupds_[i]->proc->log()) << "\n";
      for (std::size_t i = 0; i < nsqds_.size(); ++i)
        std::cerr << "--- nsqd #" << i << " log tail ---\n" << tail(nsqds_[i]->proc->log()) << "\n";
    }
  }

  static std::string tail(const std::string& log) {
    return log.size() > 3000 ? log.substr(log.size() - 3000) : log;
  }

  void finish(ServerProcess& p, bool expect_exit, const char* what) {
    if (expect_exit) return;
    if (!p.alive()) {
      ADD_FAILURE() << what << " (pid " << p.pid() << ") died during the test; log tail:\n"
                    << tail(p.log());
      return;
    }
    EXPECT_TRUE(p.stop()) << what << ": no clean exit on SIGTERM; log tail:\n" << tail(p.log());
  }

  // nsqlookupd with --broadcast-address=127.0.0.1 (nsqd queries it there); nullptr + fatal failure
  // on error.
  NsqlookupdProcess* start_lookupd(std::vector<std::string> extra = {},
                                   const std::string& tcp = "127.0.0.1:0",
                                   const std::string& http = "127.0.0.1:0") {
    auto slot = std::make_unique<LookupdSlot>();
    slot->proc = std::make_unique<NsqlookupdProcess>();
    NsqlookupdProcess::Options o;
    o.tcp_address = tcp;
    o.http_address = http;
    o.extra_args = {"--broadcast-address=127.0.0.1"};
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    auto err = slot->proc->start(o);
    auto* p = slot->proc.get();
    lookupds_.push_back(std::move(slot));
    if (!err.empty()) {
      lookupds_.back()->expect_exit = true;
      ADD_FAILURE() << "nsqlookupd did not start: " << err;
      return nullptr;
    }
    return p;
  }

  // nsqd with --broadcast-address=127.0.0.1 and one --lookupd-tcp-address per lookupd; HTTP
  // required.
  NsqdProcess* start_nsqd(const std::vector<NsqlookupdProcess*>& lookupds,
                          std::vector<std::string> extra = {}) {
    auto slot = std::make_unique<NsqdSlot>();
    slot->proc = std::make_unique<NsqdProcess>();
    NsqdProcess::Options o;
    o.data_path = slot->dir.path();
    o.require_http = true;
    o.extra_args = {"--broadcast-address=127.0.0.1"};
    for (auto* l : lookupds)
      o.extra_args.push_back("--lookupd-tcp-address=127.0.0.1:" + std::to_string(l->tcp_port()));
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    auto err = slot->proc->start(o);
    auto* p = slot->proc.get();
    nsqds_.push_back(std::move(slot));
    if (!err.empty()) {
      nsqds_.back()->expect_exit = true;
      ADD_FAILURE() << "nsqd did not start: " << err;
      return nullptr;
    }
    return p;
  }

  void expect_exit(ServerProcess* p) {
    for (auto& s : nsqds_)
      if (s->proc.get() == p) s->expect_exit = true;
    for (auto& s : lookupds_)
      if (s->proc.get() == p) s->expect_exit = true;
  }

  // SIGTERM; a clean exit expected.
  void stop(ServerProcess* p) {
    expect_exit(p);
    EXPECT_TRUE(p->stop()) << "no clean exit on SIGTERM; log tail:\n" << tail(p->log());
  }
  void kill(ServerProcess* p) {
    expect_exit(p);
    EXPECT_TRUE(p->kill_now()) << "pid " << p->pid() << " not reaped after SIGKILL";
  }

  // PUB over TCP; OK expected.
  static void tcp_pub(NsqdProcess* n, const std::string& topic, const std::string& body = "x") {
    RawClient c;
    ASSERT_TRUE(c.connect(n->tcp_port()));
    ASSERT_TRUE(c.magic());
    ASSERT_TRUE(c.pub(topic, body));
    EXPECT_TRUE(got_response(c, "OK")) << "PUB " << topic;
  }

  // An nsqd HTTP call answered with 200.
  static ::testing::AssertionResult http_ok(ServerProcess* s, const std::string& method,
                                            const std::string& target,
                                            const std::string& body = {}) {
    auto r = testutil::http_once(s->http_port(), method, target, body);
    if (r && r->status == 200) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << method << " " << target << ": " << (r ? r->describe() : std::string("no response"));
  }

  // HTTP /topic/create then /channel/create on an nsqd (the topic must exist first).
  static ::testing::AssertionResult create_channel(NsqdProcess* n, const std::string& topic,
                                                   const std::string& channel) {
    auto r = http_ok(n, "POST", "/topic/create?topic=" + enc(topic));
    if (!r) return r;
    return http_ok(n, "POST", "/channel/create?topic=" + enc(topic) + "&channel=" + enc(channel));
  }

  struct LookupdSlot {
    std::unique_ptr<NsqlookupdProcess> proc;
    bool expect_exit = false;
  };
  struct NsqdSlot {
    testutil::TempDir dir;
    std::unique_ptr<NsqdProcess> proc;
    bool expect_exit = false;
  };
  std::vector<std::unique_ptr<LookupdSlot>> lookupds_;
  std::vector<std::unique_ptr<NsqdSlot>> nsqds_;
};

// Checks the fields of every producer in /lookup?topic=T (§3): key order,
// broadcast address, ports of a known nsqd, version, remote address.
void expect_producer_fields(ServerProcess* l, const std::string& topic,
                            const std::vector<NsqdProcess*>& nsqds) {
  auto j = http_json(l->http_port(), "GET", "/lookup?topic=" + enc(topic));
  ASSERT_TRUE(j.ok()) << j.describe();
  std::vector<std::string> top = keys_of(*j.doc);
  EXPECT_EQ(top, (std::vector<std::string>{"channels", "producers"})) << j.body;
  ASSERT_TRUE((*j.doc)["producers"].IsArray()) << j.body;
  for (auto& p : (*j.doc)["producers"].GetArray()) {
    EXPECT_EQ(keys_of(p),
              (std::vector<std::string>{"remote_address", "hostname", "broadcast_address",
                                        "tcp_port", "http_port", "version"}))
        << j.body;
    ASSERT_TRUE(p.HasMember("broadcast_address") && p["broadcast_address"].IsString()) << j.body;
    EXPECT_STREQ(p["broadcast_address"].GetString(), "127.0.0.1");
    ASSERT_TRUE(p.HasMember("tcp_port") && p["tcp_port"].IsInt() && p.HasMember("http_port") &&
                p["http_port"].IsInt())
        << j.body;
    bool known = std::any_of(nsqds.begin(), nsqds.end(), [&](NsqdProcess* n) {
      return n->tcp_port() == p["tcp_port"].GetInt() && n->http_port() == p["http_port"].GetInt();
    });
    EXPECT_TRUE(known) << "ports of no nsqd: " << j.body;
    ASSERT_TRUE(p.HasMember("version") && p["version"].IsString()) << j.body;
    EXPECT_STREQ(p["version"].GetString(), "1.3.0");
    ASSERT_TRUE(p.HasMember("hostname") && p["hostname"].IsString()) << j.body;
    EXPECT_GT(p["hostname"].GetStringLength(), 0u) << j.body;
    ASSERT_TRUE(p.HasMember("remote_address") && p["remote_address"].IsString()) << j.body;
    std::string ra = p["remote_address"].GetString();
    EXPECT_EQ(ra.rfind("127.0.0.1:", 0), 0u)
        << "remote_address " << ra << " is not the connection's address";
  }
}

// §4 + §3: 2 lookupds, 3 nsqds. At startup every nsqd IDENTIFYs to both; topics
// and channels created by PUB, SUB and HTTP /channel/create on any nsqd are
// visible in both lookupds' /lookup, /topics, /channels and /nodes.
TEST_F(ClusterTest, TopicsAndChannelsOfThreeNsqdsAppearInBothLookupds) {
  auto* la = start_lookupd();
  auto* lb = start_lookupd();
  ASSERT_TRUE(la && lb);
  auto* n0 = start_nsqd({la, lb});
  auto* n1 = start_nsqd({la, lb});
  auto* n2 = start_nsqd({la, lb});
  ASSERT_TRUE(n0 && n1 && n2);
  const auto all = keys_of_nsqds({n0, n1, n2});

  // Connected and identified at startup, before any topic exists.
  for (auto* l : {la, lb}) {
    EXPECT_TRUE(eventually([&] { return nodes_are(l, all); }));
    for (auto* n : {n0, n1, n2}) EXPECT_TRUE(node_topics_are(l, key_of(n), {}));
    EXPECT_TRUE(topics_are(l, {}));
  }

  tcp_pub(n0, "t_pub");
  RawClient sub;  // stays subscribed for the whole test
  ASSERT_TRUE(sub.connect(n1->tcp_port()));
  ASSERT_TRUE(sub.magic());
  ASSERT_TRUE(sub.sub("t_sub", "c_sub"));
  ASSERT_TRUE(got_response(sub, "OK"));
  ASSERT_TRUE(create_channel(n2, "t_http", "c_http"));
  for (auto* n : {n0, n1, n2}) tcp_pub(n, "t_all");

  for (auto* l : {la, lb}) {
    SCOPED_TRACE("lookupd HTTP port " + std::to_string(l->http_port()));
    EXPECT_TRUE(eventually([&] { return lookup_is(l, "t_pub", {key_of(n0)}, Strings{}); }));
    EXPECT_TRUE(eventually([&] { return lookup_is(l, "t_sub", {key_of(n1)}, Strings{"c_sub"}); }));
    EXPECT_TRUE(
        eventually([&] { return lookup_is(l, "t_http", {key_of(n2)}, Strings{"c_http"}); }));
    EXPECT_TRUE(eventually([&] { return lookup_is(l, "t_all", all, Strings{}); }));
    EXPECT_TRUE(topics_are(l, {"t_pub", "t_sub", "t_http", "t_all"}));
    EXPECT_TRUE(channels_are(l, "t_sub", {"c_sub"}));
    EXPECT_TRUE(channels_are(l, "t_http", {"c_http"}));
    EXPECT_TRUE(channels_are(l, "t_pub", {}));
    EXPECT_TRUE(channels_are(l, "nosuch", {}));
    EXPECT_TRUE(lookup_not_found(l, "nosuch"));
    EXPECT_TRUE(nodes_are(l, all));
    EXPECT_TRUE(node_topics_are(l, key_of(n0), {{"t_pub", false}, {"t_all", false}}));
    EXPECT_TRUE(node_topics_are(l, key_of(n1), {{"t_sub", false}, {"t_all", false}}));
    EXPECT_TRUE(node_topics_are(l, key_of(n2), {{"t_http", false}, {"t_all", false}}));
    EXPECT_TRUE(channel_producers_are(l, "t_sub", "c_sub", {key_of(n1)}));
    EXPECT_TRUE(channel_producers_are(l, "t_http", "c_http", {key_of(n2)}));
    expect_producer_fields(l, "t_all", {n0, n1, n2});
  }
}

// §4 events: channel delete → UNREGISTER t c, topic delete → UNREGISTER t,
// an ephemeral channel's auto-delete → UNREGISTER; §1: ephemeral keys go
// away with their last producer, others stay with zero producers.
TEST_F(ClusterTest, DeletingChannelsAndTopicsUnregisters) {
  auto* la = start_lookupd();
  ASSERT_TRUE(la);
  auto* n0 = start_nsqd({la});
  auto* n1 = start_nsqd({la});
  ASSERT_TRUE(n0 && n1);
  const auto both = keys_of_nsqds({n0, n1});
  for (auto* n : {n0, n1}) ASSERT_TRUE(create_channel(n, "t", "c"));
  ASSERT_TRUE(eventually([&] { return lookup_is(la, "t", both, Strings{"c"}); }));
  ASSERT_TRUE(eventually([&] { return channel_producers_are(la, "t", "c", both); }));

  {
    // An ephemeral channel lives as long as its consumer.
    RawClient s;
    ASSERT_TRUE(s.connect(n0->tcp_port()));
    ASSERT_TRUE(s.magic());
    ASSERT_TRUE(s.sub("t", "e#ephemeral"));
    ASSERT_TRUE(got_response(s, "OK"));
    EXPECT_TRUE(eventually([&] { return channels_are(la, "t", {"c", "e#ephemeral"}); }));
    EXPECT_TRUE(channel_producers_are(la, "t", "e#ephemeral", {key_of(n0)}));
  }
  EXPECT_TRUE(eventually([&] { return channels_are(la, "t", {"c"}); }))
      << "ephemeral channel not unregistered (or its key not deleted) after its last consumer left";

  // Channel deleted on n0: n0 leaves channel:t:c, still produces t; the key stays.
  ASSERT_TRUE(http_ok(n0, "POST", "/channel/delete?topic=t&channel=c"));
  EXPECT_TRUE(eventually([&] { return channel_producers_are(la, "t", "c", {key_of(n1)}); }));
  EXPECT_TRUE(lookup_is(la, "t", both, Strings{"c"}));

  // Topic deleted on n0: only n1 produces t.
  ASSERT_TRUE(http_ok(n0, "POST", "/topic/delete?topic=t"));
  EXPECT_TRUE(eventually([&] { return lookup_is(la, "t", {key_of(n1)}, Strings{"c"}); }));
  EXPECT_TRUE(eventually([&] { return node_topics_are(la, key_of(n0), {}); }));
  EXPECT_TRUE(node_topics_are(la, key_of(n1), {{"t", false}}));

  // Topic deleted on n1 too: a non-ephemeral topic key stays, without producers.
  ASSERT_TRUE(http_ok(n1, "POST", "/topic/delete?topic=t"));
  EXPECT_TRUE(eventually([&] { return lookup_is(la, "t", {}, Strings{"c"}); }));
  EXPECT_TRUE(eventually([&] { return channel_producers_are(la, "t", "c", {}); }));
  EXPECT_TRUE(topics_are(la, {"t"}));
  EXPECT_TRUE(nodes_are(la, both)) << "a topic delete must not drop the nsqd itself";

  // An ephemeral topic's key disappears with its last producer.
  ASSERT_TRUE(http_ok(n0, "POST", "/topic/create?topic=et%23ephemeral"));
  EXPECT_TRUE(eventually([&] { return lookup_is(la, "et#ephemeral", {key_of(n0)}, Strings{}); }));
  EXPECT_TRUE(topics_are(la, {"t", "et#ephemeral"}));
  ASSERT_TRUE(http_ok(n0, "POST", "/topic/delete?topic=et%23ephemeral"));
  EXPECT_TRUE(eventually([&] { return lookup_not_found(la, "et#ephemeral"); }));
  EXPECT_TRUE(topics_are(la, {"t"}));
}

// §1 "Connection close": an nsqd that exits (SIGTERM: no UNREGISTER is sent)
// or is killed disappears from every registration of both lookupds.
TEST_F(ClusterTest, StoppedNsqdDisappearsFromLookupd) {
  auto* la = start_lookupd();
  auto* lb = start_lookupd();
  ASSERT_TRUE(la && lb);
  auto* n0 = start_nsqd({la, lb});
  auto* n1 = start_nsqd({la, lb});
  auto* n2 = start_nsqd({la, lb});
  ASSERT_TRUE(n0 && n1 && n2);
  for (auto* n : {n0, n1, n2}) ASSERT_TRUE(create_channel(n, "t", "c"));
  for (auto* l : {la, lb})
    ASSERT_TRUE(eventually([&] {
      return lookup_is(l, "t", keys_of_nsqds({n0, n1, n2}), Strings{"c"});
    }));

  stop(n0);
  for (auto* l : {la, lb}) {
    EXPECT_TRUE(eventually([&] {
      return lookup_is(l, "t", keys_of_nsqds({n1, n2}), Strings{"c"});
    }));
    EXPECT_TRUE(nodes_are(l, keys_of_nsqds({n1, n2})));
    EXPECT_TRUE(channel_producers_are(l, "t", "c", keys_of_nsqds({n1, n2})));
  }

  kill(n1);
  for (auto* l : {la, lb}) {
    EXPECT_TRUE(eventually([&] { return lookup_is(l, "t", {key_of(n2)}, Strings{"c"}); }));
    EXPECT_TRUE(nodes_are(l, {key_of(n2)}));
    EXPECT_TRUE(channel_producers_are(l, "t", "c", {key_of(n2)}));
  }
}

// §2 liveness: with --inactive-producer-timeout=1s a producer that neither
// PINGs nor re-IDENTIFYs is hidden from /lookup and /nodes 1 s after its
// last update, while a pinging one stays; its registrations are kept, so a
// PING brings it back. Raw V1 clients (a real nsqd pings every 15 s).
TEST_F(ClusterTest, SilentProducerBecomesInactive) {
  auto* la = start_lookupd({"--inactive-producer-timeout=1s"});
  ASSERT_TRUE(la);
  const auto silent_key = raw_key(1001, 1002);
  const auto pinger_key = raw_key(2001, 2002);

  V1Client pinger;
  ASSERT_TRUE(pinger.connect(la->tcp_port()));
  ASSERT_TRUE(pinger.magic());
  ASSERT_TRUE(pinger.identify(identify_json(2001, 2002, "pinger")));
  auto idr = pinger.read(kReply);
  ASSERT_EQ(idr.status, V1Client::Status::data) << idr.describe();
  {
    // §1 IDENTIFY response: sorted keys, lookupd's broadcast address and real ports.
    rapidjson::Document d;
    d.Parse(idr.data.c_str(), idr.data.size());
    ASSERT_TRUE(!d.HasParseError() && d.IsObject()) << idr.data;
    EXPECT_EQ(keys_of(d), (std::vector<std::string>{"broadcast_address", "hostname", "http_port",
                                                    "tcp_port", "version"}))
        << idr.data;
    EXPECT_TRUE(d.HasMember("broadcast_address") && d["broadcast_address"].IsString() &&
                std::string(d["broadcast_address"].GetString()) == "127.0.0.1")
        << idr.data;
    EXPECT_TRUE(d.HasMember("tcp_port") && d["tcp_port"].IsInt() &&
                d["tcp_port"].GetInt() == la->tcp_port())
        << idr.data;
    EXPECT_TRUE(d.HasMember("http_port") && d["http_port"].IsInt() &&
                d["http_port"].GetInt() == la->http_port())
        << idr.data;
    EXPECT_TRUE(d.HasMember("version") && d["version"].IsString() &&
                std::string(d["version"].GetString()) == "1.3.0")
        << idr.data;
  }
  ASSERT_TRUE(pinger.line("REGISTER t"));
  ASSERT_TRUE(v1_reply(pinger, "OK"));

  V1Client silent;
  ASSERT_TRUE(silent.connect(la->tcp_port()));
  ASSERT_TRUE(silent.magic());
  auto t0 = Clock::now();  // the silent producer's last update is after this
  ASSERT_TRUE(silent.identify(identify_json(1001, 1002, "silent")));
  ASSERT_EQ(silent.read(kReply).status, V1Client::Status::data);
  ASSERT_TRUE(silent.line("REGISTER t c"));
  ASSERT_TRUE(v1_reply(silent, "OK"));
  {
    auto seen = lookup_is(la, "t", {silent_key, pinger_key}, Strings{"c"});
    if (since_ms(t0) < 800) {
      EXPECT_TRUE(seen) << "a fresh producer must be visible";
    }
  }

  // Keep the pinger alive and wait for the silent one to go.
  auto ping = [&] {
    EXPECT_TRUE(pinger.line("PING"));
    EXPECT_TRUE(v1_reply(pinger, "OK"));
  };
  auto gone = eventually(
      [&] {
        ping();
        return lookup_is(la, "t", {pinger_key}, Strings{"c"});
      },
      ms(8000));
  auto gone_after = since_ms(t0);
  ASSERT_TRUE(gone)
      << "a producer silent for longer than --inactive-producer-timeout is still listed";
  EXPECT_GE(gone_after, 950) << "hidden before --inactive-producer-timeout (1 s) elapsed";
  EXPECT_TRUE(nodes_are(la, {pinger_key}));

  // The pinger stays visible well past the timeout.
  auto until = Clock::now() + 1500ms;
  while (Clock::now() < until) {
    ping();
    EXPECT_TRUE(lookup_is(la, "t", {pinger_key}, Strings{"c"}));
    std::this_thread::sleep_for(200ms);
  }

  // lookupd does not close an inactive peer (no deadlines): a PING revives it.
  EXPECT_EQ(silent.read(ms(100)).status, V1Client::Status::timeout)
      << "lookupd closed the silent connection";
  ASSERT_TRUE(silent.line("PING"));
  ASSERT_TRUE(v1_reply(silent, "OK"));
  EXPECT_TRUE(lookup_is(la, "t", {silent_key, pinger_key}, Strings{"c"}))
      << "PING must refresh an identified peer and its registrations must have been kept";
  EXPECT_TRUE(nodes_are(la, {silent_key, pinger_key}));
}

// §2 tombstones: POST /topic/tombstone hides that nsqd from /lookup of that
// topic only, for --tombstone-lifetime, even if it REGISTERs the topic again
// meanwhile; /nodes flags it; afterwards it is listed again.
TEST_F(ClusterTest, TombstoneHidesProducerForItsLifetime) {
  auto* la = start_lookupd({"--tombstone-lifetime=2s"});
  ASSERT_TRUE(la);
  auto* n0 = start_nsqd({la});
  auto* n1 = start_nsqd({la});
  ASSERT_TRUE(n0 && n1);
  tcp_pub(n0, "t");
  tcp_pub(n1, "t");
  tcp_pub(n0, "u");
  ASSERT_TRUE(eventually([&] { return lookup_is(la, "t", keys_of_nsqds({n0, n1})); }));
  ASSERT_TRUE(eventually([&] { return lookup_is(la, "u", {key_of(n0)}); }));

  // Argument errors, and a node that matches nothing.
  EXPECT_EQ(http_json(la->http_port(), "POST", "/topic/tombstone?topic=t").body,
            R"({"message":"MISSING_ARG_NODE"})");
  EXPECT_TRUE(http_ok(la, "POST", "/topic/tombstone?topic=t&node=127.0.0.1:1"));
  EXPECT_TRUE(lookup_is(la, "t", keys_of_nsqds({n0, n1})));

  const std::string node = "127.0.0.1:" + std::to_string(n0->http_port());
  auto t0 = Clock::now();
  ASSERT_TRUE(http_ok(la, "POST", "/topic/tombstone?topic=t&node=" + node));
  EXPECT_TRUE(lookup_is(la, "t", {key_of(n1)}))
      << "tombstoned producer still listed right after the tombstone";
  EXPECT_TRUE(lookup_is(la, "u", {key_of(n0)})) << "a tombstone is per topic";
  EXPECT_TRUE(node_topics_are(la, key_of(n0), {{"t", true}, {"u", false}}));
  EXPECT_TRUE(nodes_are(la, keys_of_nsqds({n0, n1}))) << "/nodes does not filter tombstones";

  // n0 registers t again (a new channel): the tombstone holds.
  ASSERT_TRUE(create_channel(n0, "t", "c"));
  EXPECT_TRUE(
      eventually([&] { return channel_producers_are(la, "t", "c", {key_of(n0)}); }, ms(1500)));
  {
    auto hidden = lookup_is(la, "t", {key_of(n1)}, Strings{"c"});
    if (since_ms(t0) < 1800) {
      EXPECT_TRUE(hidden) << "a REGISTER during the tombstone window cleared it";
    }
  }

  auto back = eventually(
      [&] {
        return lookup_is(la, "t", keys_of_nsqds({n0, n1}), Strings{"c"});
      },
      ms(8000));
  auto back_after = since_ms(t0);
  EXPECT_TRUE(back) << "producer not listed again after --tombstone-lifetime";
  EXPECT_GE(back_after, 1900) << "tombstone ended before --tombstone-lifetime (2 s)";
  EXPECT_TRUE(node_topics_are(la, key_of(n0), {{"t", false}, {"u", false}}));
}

// §4 topic creation query: a topic created at runtime on nsqd first asks
// every lookupd's /channels and creates those channels (not #ephemeral ones)
// before delivering, so the first PUB is queued in each of them.
TEST_F(ClusterTest, NewTopicGetsChannelsKnownToLookupds) {
  auto* la = start_lookupd();
  auto* lb = start_lookupd();
  ASSERT_TRUE(la && lb);
  ASSERT_TRUE(http_ok(la, "POST", "/channel/create?topic=t&channel=c"));
  ASSERT_TRUE(http_ok(la, "POST", "/channel/create?topic=t&channel=e%23ephemeral"));
  ASSERT_TRUE(http_ok(lb, "POST", "/channel/create?topic=t&channel=d"));
  ASSERT_TRUE(http_ok(lb, "POST", "/channel/create?topic=t&channel=c"));

  auto* n0 = start_nsqd({la, lb});
  ASSERT_TRUE(n0);
  // The nsqd must have had its IDENTIFY answered (it learns lookupd's HTTP address from it).
  ASSERT_TRUE(eventually([&] { return nodes_are(la, {key_of(n0)}); }));
  ASSERT_TRUE(eventually([&] { return nodes_are(lb, {key_of(n0)}); }));

  tcp_pub(n0, "t", "hello");

  std::string last;
  auto depths = [&]() -> ::testing::AssertionResult {
    auto j = http_json(n0->http_port(), "GET", "/stats?format=json&topic=t");
    last = j.body;
    if (!j.ok() || !j.doc->IsObject() || !j.doc->HasMember("topics"))
      return ::testing::AssertionFailure() << "/stats: " << j.describe();
    auto* tp = find_named((*j.doc)["topics"], "topic_name", "t");
    if (!tp || !tp->HasMember("channels") || !(*tp)["channels"].IsArray())
      return ::testing::AssertionFailure() << "no topic t in /stats: " << j.body;
    std::map<std::string, int64_t> got;
    for (auto& ch : (*tp)["channels"].GetArray()) {
      if (!ch.HasMember("channel_name") || !ch.HasMember("depth") || !ch["depth"].IsInt64())
        return ::testing::AssertionFailure() << "bad channel in /stats: " << j.body;
      got[ch["channel_name"].GetString()] = ch["depth"].GetInt64();
    }
    std::map<std::string, int64_t> want{{"c", 1}, {"d", 1}};
    if (got != want)
      return ::testing::AssertionFailure()
             << "channels of t (name → depth) are not {c:1, d:1}: " << j.body;
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(eventually(depths, ms(5000)))
      << "the new topic did not create lookupd's channels before delivering its first message";

  // nsqd then registers the channels it created.
  for (auto* l : {la, lb}) {
    EXPECT_TRUE(eventually([&] { return channel_producers_are(l, "t", "c", {key_of(n0)}); }));
    EXPECT_TRUE(eventually([&] { return channel_producers_are(l, "t", "d", {key_of(n0)}); }));
    EXPECT_TRUE(lookup_is(l, "t", {key_of(n0)}));
  }
}

// §4 + http-api PUT /config/nsqlookupd_tcp_addresses: new lookupds are
// connected (and get every existing topic), removed ones are disconnected
// (so they forget the nsqd).
TEST_F(ClusterTest, ChangingLookupdAddressesMovesTheRegistration) {
  auto* la = start_lookupd();
  auto* lb = start_lookupd();
  ASSERT_TRUE(la && lb);
  auto* n0 = start_nsqd({la});
  ASSERT_TRUE(n0);
  ASSERT_TRUE(create_channel(n0, "t", "c"));
  ASSERT_TRUE(eventually([&] { return lookup_is(la, "t", {key_of(n0)}, Strings{"c"}); }));
  EXPECT_TRUE(nodes_are(lb, {}));

  const std::string a = "127.0.0.1:" + std::to_string(la->tcp_port());
  const std::string b = "127.0.0.1:" + std::to_string(lb->tcp_port());
  auto r = testutil::http_once(n0->http_port(), "PUT", "/config/nsqlookupd_tcp_addresses",
                               R"([")" + a + R"(",")" + b + R"("])");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->describe() : "no response");
  EXPECT_TRUE(eventually([&] { return lookup_is(lb, "t", {key_of(n0)}, Strings{"c"}); }))
      << "a newly configured lookupd did not get the existing topics";
  EXPECT_TRUE(eventually([&] { return channel_producers_are(lb, "t", "c", {key_of(n0)}); }));
  EXPECT_TRUE(lookup_is(la, "t", {key_of(n0)}, Strings{"c"}));

  r = testutil::http_once(n0->http_port(), "PUT", "/config/nsqlookupd_tcp_addresses",
                          R"([")" + b + R"("])");
  ASSERT_TRUE(r && r->status == 200) << (r ? r->describe() : "no response");
  EXPECT_TRUE(eventually([&] { return nodes_are(la, {}); }))
      << "the removed lookupd still has the nsqd";
  EXPECT_TRUE(lookup_is(la, "t", {}, Strings{"c"}));
  EXPECT_TRUE(nodes_are(lb, {key_of(n0)}));
  EXPECT_TRUE(lookup_is(lb, "t", {key_of(n0)}, Strings{"c"}));

  // Registrations after the change go to the new set only.
  tcp_pub(n0, "t2");
  EXPECT_TRUE(eventually([&] { return lookup_is(lb, "t2", {key_of(n0)}); }));
  EXPECT_TRUE(lookup_not_found(la, "t2"));
}

// §4: a lost lookupd connection is re-established by the next PING (15 s),
// with IDENTIFY and a REGISTER of every topic/channel: a lookupd restarted on
// the same ports (empty DB) learns everything again.
TEST_F(ClusterTest, NsqdReregistersWithARestartedLookupd) {
  auto* la = start_lookupd();
  auto* lb = start_lookupd();  // stays up: the nsqd keeps its other peer
  ASSERT_TRUE(la && lb);
  const int tcp = la->tcp_port();
  const int http = la->http_port();
  auto* n0 = start_nsqd({la, lb});
  ASSERT_TRUE(n0);
  ASSERT_TRUE(create_channel(n0, "t", "c"));
  tcp_pub(n0, "u");
  ASSERT_TRUE(eventually([&] { return lookup_is(la, "t", {key_of(n0)}, Strings{"c"}); }));
  ASSERT_TRUE(eventually([&] { return lookup_is(la, "u", {key_of(n0)}); }));

  kill(la);
  auto* la2 =
      start_lookupd({}, "127.0.0.1:" + std::to_string(tcp), "127.0.0.1:" + std::to_string(http));
  ASSERT_TRUE(la2)
      << "could not restart nsqlookupd on the same ports (is SO_REUSEADDR set on its listeners?)";
  ASSERT_EQ(la2->tcp_port(), tcp);
  ASSERT_EQ(la2->http_port(), http);
  auto t0 = Clock::now();

  EXPECT_TRUE(
      eventually([&] { return lookup_is(la2, "t", {key_of(n0)}, Strings{"c"}); }, kReconnect))
      << "nsqd did not re-register with the restarted lookupd within two PING intervals";
  std::cerr << "re-registered after " << since_ms(t0) << " ms\n";
  EXPECT_TRUE(eventually([&] { return lookup_is(la2, "u", {key_of(n0)}); }));
  EXPECT_TRUE(channel_producers_are(la2, "t", "c", {key_of(n0)}));
  EXPECT_TRUE(nodes_are(la2, {key_of(n0)}));
  EXPECT_TRUE(node_topics_are(la2, key_of(n0), {{"t", false}, {"u", false}}));
  EXPECT_TRUE(lookup_is(lb, "t", {key_of(n0)}, Strings{"c"}));

  // And the reconnected peer carries new events.
  tcp_pub(n0, "v");
  EXPECT_TRUE(eventually([&] { return lookup_is(la2, "v", {key_of(n0)}); }));
}

// §1 errors from raw V1 clients: each gets its exact error and is
// disconnected; none of it disturbs an nsqd's registrations in that lookupd.
TEST_F(ClusterTest, BadClientsGetErrorsAndLeaveRegistrationsIntact) {
  auto* la = start_lookupd();
  ASSERT_TRUE(la);
  auto* n0 = start_nsqd({la});
  ASSERT_TRUE(n0);
  ASSERT_TRUE(create_channel(n0, "t", "c"));
  ASSERT_TRUE(eventually([&] { return lookup_is(la, "t", {key_of(n0)}, Strings{"c"}); }));
  const int port = la->tcp_port();

  auto fresh = [&](V1Client& c) {
    ASSERT_TRUE(c.connect(port));
    ASSERT_TRUE(c.magic());
  };
  auto identified = [&](V1Client& c, int tcp_port = 3001, int http_port = 3002) {
    fresh(c);
    ASSERT_TRUE(c.identify(identify_json(tcp_port, http_port)));
    auto r = c.read(kReply);
    ASSERT_EQ(r.status, V1Client::Status::data) << r.describe();
    ASSERT_EQ(r.data.rfind("{", 0), 0u) << "IDENTIFY answered " << r.data;
  };

  {
    SCOPED_TRACE("bad magic");
    V1Client c;
    ASSERT_TRUE(c.connect(port));
    ASSERT_TRUE(c.send("  V2PING\n"));
    EXPECT_TRUE(v1_fatal(c, "E_BAD_PROTOCOL"));
  }
  {
    SCOPED_TRACE("garbage magic");
    V1Client c;
    ASSERT_TRUE(c.connect(port));
    ASSERT_TRUE(c.send(std::string("\x00\xff\x13\x37garbage\n", 12)));
    EXPECT_TRUE(v1_fatal(c, "E_BAD_PROTOCOL"));
  }
  {
    SCOPED_TRACE("unknown command");
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.line("FOO bar"));
    EXPECT_TRUE(v1_fatal(c, "E_INVALID invalid command FOO"));
  }
  {
    SCOPED_TRACE("lower-case command");
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.line("ping"));
    EXPECT_TRUE(v1_fatal(c, "E_INVALID invalid command ping"));
  }
  {
    SCOPED_TRACE("binary garbage");
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.send(std::string("\x01\x02\xfe\xff\x00zz\n", 8)));
    EXPECT_TRUE(v1_fatal(c, "E_INVALID invalid command ", true));
  }
  {
    SCOPED_TRACE("PING before IDENTIFY, CRLF");
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.line("PING"));
    EXPECT_TRUE(v1_reply(c, "OK"));
    ASSERT_TRUE(c.send("PING\r\n"));
    EXPECT_TRUE(v1_reply(c, "OK"));
    ASSERT_TRUE(c.send("  PING  \n"));
    EXPECT_TRUE(v1_reply(c, "OK"));
  }
  for (const char* cmd : {"REGISTER t", "REGISTER t c", "UNREGISTER t", "UNREGISTER t c"}) {
    SCOPED_TRACE(std::string(cmd) + " before IDENTIFY");
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.line(cmd));
    EXPECT_TRUE(v1_fatal(c, "E_INVALID client must IDENTIFY"));
  }
  {
    SCOPED_TRACE("IDENTIFY with invalid JSON");
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.identify("{not json"));
    EXPECT_TRUE(v1_fatal(c, "E_BAD_BODY IDENTIFY failed to decode JSON body"));
  }
  for (std::string body :
       {std::string(
            R"({"broadcast_address":"127.0.0.1","tcp_port":0,"http_port":1,"version":"1.3.0"})"),
        std::string(
            R"({"broadcast_address":"127.0.0.1","tcp_port":1,"http_port":0,"version":"1.3.0"})"),
        std::string(R"({"broadcast_address":"","tcp_port":1,"http_port":1,"version":"1.3.0"})"),
        std::string(R"({"broadcast_address":"127.0.0.1","tcp_port":1,"http_port":1})"),
        std::string("{}")}) {
    SCOPED_TRACE("IDENTIFY " + body);
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.identify(body));
    EXPECT_TRUE(v1_fatal(c, "E_BAD_BODY IDENTIFY missing fields"));
  }
  for (uint32_t size : {0x7fffffffu, 0xffffffffu}) {
    SCOPED_TRACE("IDENTIFY body size " + std::to_string(size));
    V1Client c;
    fresh(c);
    ASSERT_TRUE(c.send("IDENTIFY\n" + be32(size) + "{}"));
    EXPECT_TRUE(v1_fatal(c, "E_BAD_BODY ", true))
        << "a huge or negative IDENTIFY size must be rejected";
  }
  {
    SCOPED_TRACE("IDENTIFY twice");
    V1Client c;
    identified(c);
    ASSERT_TRUE(c.identify(identify_json(3001, 3002)));
    EXPECT_TRUE(v1_fatal(c, "E_INVALID cannot IDENTIFY again"));
  }
  struct Bad {
    const char* line;
    const char* error;
  };
  for (const Bad& b : {
           Bad{"REGISTER", "E_INVALID REGISTER insufficient number of params"},
           Bad{"UNREGISTER", "E_INVALID UNREGISTER insufficient number of params"},
           Bad{"REGISTER bad!topic", "E_BAD_TOPIC REGISTER topic name 'bad!topic' is not valid"},
           Bad{"UNREGISTER bad!topic",
               "E_BAD_TOPIC UNREGISTER topic name 'bad!topic' is not valid"},
           Bad{"REGISTER t bad!chan",
               "E_BAD_CHANNEL REGISTER channel name 'bad!chan' is not valid"},
           Bad{"UNREGISTER t bad!chan",
               "E_BAD_CHANNEL UNREGISTER channel name 'bad!chan' is not valid"},
           Bad{"REGISTER aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
               "E_BAD_TOPIC REGISTER topic name "
               "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' is not valid"},
       }) {
    SCOPED_TRACE(b.line);
    V1Client c;
    identified(c);
    ASSERT_TRUE(c.line(b.line));
    EXPECT_TRUE(v1_fatal(c, b.error));
  }
  {
    // An identified client that registered t and then errors: closing its
    // connection removes its registrations only.
    SCOPED_TRACE("registered, then an error");
    V1Client c;
    identified(c, 4001, 4002);
    ASSERT_TRUE(c.line("REGISTER t c"));
    ASSERT_TRUE(v1_reply(c, "OK"));
    EXPECT_TRUE(lookup_is(la, "t", {key_of(n0), raw_key(4001, 4002)}, Strings{"c"}));
    ASSERT_TRUE(c.line("BOGUS"));
    EXPECT_TRUE(v1_fatal(c, "E_INVALID invalid command BOGUS"));
    EXPECT_TRUE(eventually([&] { return lookup_is(la, "t", {key_of(n0)}, Strings{"c"}); }));
  }
  {
    // An impostor with the nsqd's own address and ports is a different peer
    // (keyed by its connection): its UNREGISTER does not touch the nsqd.
    SCOPED_TRACE("impostor");
    V1Client c;
    identified(c, n0->tcp_port(), n0->http_port());
    ASSERT_TRUE(c.line("REGISTER t c"));
    ASSERT_TRUE(v1_reply(c, "OK"));
    ASSERT_TRUE(c.line("UNREGISTER t c"));
    ASSERT_TRUE(v1_reply(c, "OK"));
    ASSERT_TRUE(c.line("UNREGISTER t"));
    ASSERT_TRUE(v1_reply(c, "OK"));
    EXPECT_TRUE(lookup_is(la, "t", {key_of(n0)}, Strings{"c"}));
    EXPECT_TRUE(channel_producers_are(la, "t", "c", {key_of(n0)}));
  }

  // The nsqd's registration is intact, and its connection still works.
  EXPECT_TRUE(eventually([&] { return nodes_are(la, {key_of(n0)}); }));
  EXPECT_TRUE(lookup_is(la, "t", {key_of(n0)}, Strings{"c"}));
  EXPECT_TRUE(channel_producers_are(la, "t", "c", {key_of(n0)}));
  tcp_pub(n0, "after");
  EXPECT_TRUE(eventually([&] { return lookup_is(la, "after", {key_of(n0)}); }));
}

}  // namespace
}  // namespace nsq::integration
