#pragma once

// A real etcd and up to three real nsqd in cluster mode on loopback, for the
// replication tests (docs/replication.md).

#include <rapidjson/document.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "integration/harness.h"
#include "testutil/etcd_process.h"
#include "testutil/files.h"
#include "testutil/http_client.h"
#include "testutil/temp_dir.h"

namespace nsq::integration {

using testutil::EtcdProcess;
using testutil::HttpClient;
using Clock = std::chrono::steady_clock;

// Polls pred until it holds or timeout passes.
inline bool eventually(const std::function<bool()>& pred, ms timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);  // polling interval, not synchronisation
  }
}

// A topic's "replication" object as one node's /stats shows it.
struct Replication {
  std::string role;
  std::int64_t epoch = 0;
  std::string leader;
  std::vector<std::string> replicas;
  std::vector<std::string> isr;
  std::map<std::string, std::int64_t> lag;  // on the leader: records per follower
};

// A node's TCP address as the test reaches it; port 0: none.
struct Endpoint {
  std::string host = "127.0.0.1";
  int port = 0;
};

inline std::vector<std::string> strings(const rapidjson::Value& v) {
  std::vector<std::string> out;
  if (!v.IsArray()) return out;
  for (const auto& s : v.GetArray()) {
    if (s.IsString()) out.emplace_back(s.GetString());
  }
  return out;
}

class ReplicationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testutil::nsqd_binary_path().empty()) GTEST_SKIP() << "no nsqd binary";
    if (testutil::etcd_binary_path().empty()) {
      GTEST_SKIP() << "no etcd (scripts/install-deps.sh installs etcd-server)";
    }
    const std::string err = etcd_.start(dir_.path() / "etcd");
    ASSERT_TRUE(err.empty()) << err;
  }

  // Starts one nsqd in cluster mode; its node id is 127.0.0.1:<tcp port>.
  // `binary`: another command that runs nsqd (empty: nsqd itself).
  // `host`: where the test reaches it (another network namespace's address).
  NsqdProcess* start_node(std::vector<std::string> extra = {}, std::string binary = {},
                          std::string host = "127.0.0.1") {
    NsqdProcess::Options o;
    o.binary = std::move(binary);
    o.host = std::move(host);
    o.data_path = dir_.path() / ("node" + std::to_string(nodes_.size()));
    std::filesystem::create_directories(o.data_path);
    o.require_http = true;
    o.extra_args = {"--broadcast-address=127.0.0.1", "--etcd-endpoints=" + etcd_.endpoint(),
                    "--cluster-lease-ttl=" + std::to_string(lease_ttl_s_) + "s"};
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    auto node = launch(o);
    if (!node) return nullptr;
    options_.push_back(std::move(o));
    nodes_.push_back(std::move(node));
    return nodes_.back().get();
  }

  // Three nodes with a 2 s lease and topic "t" placed on all of them, the
  // first leading; false (after a test failure) when that cannot be had.
  bool start_three_with_topic(const std::vector<std::string>& extra = {}) {
    lease_ttl_s_ = 2;
    for (int i = 0; i < 3; ++i) {
      if (!start_node(extra)) return false;
    }
    return http(nodes_[0].get(), "POST", "/topic/create?topic=t") &&
           await_epoch(nodes_[1].get(), "t", 1, kReply) &&
           await_epoch(nodes_[2].get(), "t", 1, kReply);
  }

  // Starts node `index` again after it stopped: the same data directory,
  // flags and ports, so the same node id.
  NsqdProcess* restart_node(std::size_t index) {
    NsqdProcess::Options o = options_.at(index);
    const NsqdProcess& old = *nodes_.at(index);
    // On the interface it listened on before (all of them for a node that
    // other namespaces reach).
    const bool everywhere = std::find(o.extra_args.begin(), o.extra_args.end(),
                                      "--tcp-address=0.0.0.0:0") != o.extra_args.end();
    const std::string listen = everywhere ? "0.0.0.0:" : "127.0.0.1:";
    o.extra_args.push_back("--tcp-address=" + listen + std::to_string(old.tcp_port()));
    o.extra_args.push_back("--http-address=" + listen + std::to_string(old.http_port()));
    auto node = launch(o);
    if (!node) return nullptr;
    nodes_[index] = std::move(node);
    return nodes_[index].get();
  }

  static std::unique_ptr<NsqdProcess> launch(const NsqdProcess::Options& o) {
    auto node = std::make_unique<NsqdProcess>();
    const std::string err = node->start(o);
    if (!err.empty()) {
      ADD_FAILURE() << err;
      return nullptr;
    }
    if (!node->wait_for_log("CLUSTER: joined", kReply)) {
      ADD_FAILURE() << "never joined: " << node->log();
      return nullptr;
    }
    return node;
  }

  static std::string id(NsqdProcess* node) {
    return "127.0.0.1:" + std::to_string(node->tcp_port());
  }

  static std::optional<testutil::HttpReply> http(NsqdProcess* node, std::string_view method,
                                                 std::string_view target,
                                                 std::string_view body = {}) {
    HttpClient client(node->host(), node->http_port());
    return client.request(method, target, body);
  }

 public:
  // The topic's replication on `node`, nullopt when its /stats has none.
  static std::optional<Replication> replication(NsqdProcess* node, const std::string& topic) {
    auto reply = http(node, "GET", "/stats?format=json&topic=" + topic);
    if (!reply || reply->status != 200) return std::nullopt;
    rapidjson::Document doc;
    if (doc.Parse(reply->body.c_str()).HasParseError() || !doc.IsObject()) return std::nullopt;
    if (!doc.HasMember("topics") || !doc["topics"].IsArray()) return std::nullopt;
    for (const auto& t : doc["topics"].GetArray()) {
      if (!t.IsObject() || !t.HasMember("topic_name") || !t["topic_name"].IsString() ||
          topic != t["topic_name"].GetString() || !t.HasMember("replication")) {
        continue;
      }
      const auto& r = t["replication"];
      Replication out;
      out.role = r["role"].GetString();
      out.epoch = r["epoch"].GetInt64();
      out.leader = r["leader"].GetString();
      out.replicas = strings(r["replicas"]);
      out.isr = strings(r["isr"]);
      if (r.HasMember("lag") && r["lag"].IsObject()) {
        for (const auto& m : r["lag"].GetObject()) {
          if (m.value.IsInt64()) out.lag[m.name.GetString()] = m.value.GetInt64();
        }
      }
      return out;
    }
    return std::nullopt;
  }

 protected:
  // Waits until `node` reports `topic` at `epoch` or later with a leader,
  // and returns that view.
  static std::optional<Replication> await_epoch(NsqdProcess* node, const std::string& topic,
                                                std::int64_t epoch, ms timeout) {
    std::optional<Replication> r;
    eventually(
        [&] {
          r = replication(node, topic);
          return r && r->epoch >= epoch && !r->leader.empty();
        },
        timeout);
    return r;
  }

  // Where a consumer finds the leader of `topic`: the node it is, as the
  // first node that answers sees it (port 0 when none is known). Safe on
  // another thread while nodes stop and restart: it uses the addresses taken
  // now, which a restart keeps, and no process handle.
  std::function<Endpoint()> leader_finder(const std::string& topic) const {
    struct Node {
      std::string host;
      int tcp, http;
    };
    std::vector<Node> nodes;
    for (const auto& n : nodes_) nodes.push_back({n->host(), n->tcp_port(), n->http_port()});
    return [nodes, topic]() -> Endpoint {
      for (const auto& node : nodes) {
        // Briefly: a node cut off answers nothing.
        HttpClient client(node.host, node.http, ms(1000));
        auto reply = client.request("GET", "/stats?format=json&topic=" + topic, "");
        if (!reply || reply->status != 200) continue;
        rapidjson::Document doc;
        if (doc.Parse(reply->body.c_str()).HasParseError() || !doc.IsObject()) continue;
        if (!doc.HasMember("topics") || !doc["topics"].IsArray()) continue;
        for (const auto& t : doc["topics"].GetArray()) {
          if (!t.IsObject() || !t.HasMember("replication") || !t["replication"].IsObject())
            continue;
          const auto& r = t["replication"];
          if (!r.HasMember("leader") || !r["leader"].IsString()) continue;
          const std::string leader = r["leader"].GetString();
          for (const auto& other : nodes) {
            if (leader.ends_with(":" + std::to_string(other.tcp))) return {other.host, other.tcp};
          }
        }
      }
      return {};
    };
  }

  // Long enough that a loaded machine (CI) does not miss a keep-alive.
  int lease_ttl_s_ = 3;
  testutil::TempDir dir_;
  EtcdProcess etcd_;
  std::vector<std::unique_ptr<NsqdProcess>> nodes_;
  std::vector<NsqdProcess::Options> options_;  // how each of nodes_ was started
};

// Producers publishing to topic "t" until stopped; every message answered
// OK is recorded. Producer p starts on ports[p % n] and publishes MPUBs of
// `mpub` messages when p is odd and mpub > 1, else PUBs. As a client
// library does, it connects again after an error (E_PUB_FAILED closes the
// connection), to the next port when its node is gone. `enter` runs first
// on each producer's thread (e.g. to join a network namespace).
class Producers {
 public:
  // `name` starts every body (two groups of producers need two names).
  Producers(std::vector<int> ports, int count, std::function<void()> enter = {}, int mpub = 1,
            std::string name = "p") {
    for (int p = 0; p < count; ++p) {
      threads_.emplace_back([this, ports, p, enter, mpub, name] {
        if (enter) enter();
        RawClient client;
        std::size_t at = static_cast<std::size_t>(p);
        for (int i = 0; go_; ++i) {
          if (!client.connected()) {
            if (!client.connect(ports[at % ports.size()])) {
              ++at;
              std::this_thread::sleep_for(ms(20));  // retry pacing, as a client backs off
              continue;
            }
            client.magic();
          }
          std::vector<std::string> bodies;
          const int n = (p % 2 == 1 && mpub > 1) ? mpub : 1;
          for (int k = 0; k < n; ++k) {
            bodies.push_back(name + std::to_string(p) + "-m" + std::to_string(i) + "-" +
                             std::to_string(k) + ".");
          }
          const bool sent = n == 1 ? client.pub("t", bodies[0]) : client.mpub("t", bodies);
          auto reply = sent ? client.read_skip_heartbeats(ms(15000)) : RawClient::ReadResult{};
          if (is_response(reply, "OK")) {
            std::lock_guard lock(mu_);
            acked_.insert(acked_.end(), bodies.begin(), bodies.end());
          } else {
            client.close();
            ++at;
          }
        }
      });
    }
  }
  ~Producers() { stop(); }

  std::size_t acked() const {
    std::lock_guard lock(mu_);
    return acked_.size();
  }
  std::vector<std::string> stop() {
    go_ = false;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
    std::lock_guard lock(mu_);
    return acked_;
  }

 private:
  std::atomic<bool> go_{true};
  mutable std::mutex mu_;
  std::vector<std::string> acked_;
  std::vector<std::thread> threads_;
};

// A consumer of t/c that follows the leader: `leader_port()` says where it
// is now (0: unknown), asked again every second, as a client polls
// nsqlookupd (a former leader keeps the connection open but delivers
// nothing more). It FINs everything and counts deliveries per body.
class Consumer {
 public:
  explicit Consumer(std::function<Endpoint()> find_leader)
      : thread_([this, find_leader = std::move(find_leader)] {
          RawClient client;
          int connected_to = 0;
          auto asked = Clock::now();
          while (go_) {
            if (client.connected() && Clock::now() - asked >= std::chrono::seconds(1)) {
              asked = Clock::now();
              const int now_leading = find_leader().port;
              if (now_leading != 0 && now_leading != connected_to) client.close();
            }
            if (!client.connected()) {
              const Endpoint leader = find_leader();
              const int port = leader.port;
              asked = Clock::now();
              if (port == 0 || !client.connect(leader.host, port)) {
                std::this_thread::sleep_for(ms(50));  // polling for the new leader
                continue;
              }
              client.magic();
              client.sub("t", "c");
              if (!is_response(client.read_skip_heartbeats(kReply), "OK")) {
                client.close();
                std::this_thread::sleep_for(ms(50));
                continue;
              }
              connected_to = port;
              client.rdy(100);
            }
            auto r = client.read_skip_heartbeats(ms(200));
            if (r.status == RawClient::ReadStatus::timeout) continue;
            auto m = testutil::to_test_message(r.frame);
            if (!m) {
              client.close();
              continue;
            }
            client.fin(m->id);
            std::lock_guard lock(mu_);
            ++delivered_[m->body];
          }
        }) {}
  ~Consumer() { stop(); }

  void stop() {
    go_ = false;
    if (thread_.joinable()) thread_.join();
  }
  // How many of `bodies` were never delivered, and how many deliveries
  // were repeats.
  std::pair<std::size_t, std::size_t> missing_and_repeats(
      const std::vector<std::string>& bodies) const {
    std::lock_guard lock(mu_);
    std::size_t missing = 0, repeats = 0;
    for (const auto& b : bodies) {
      if (!delivered_.count(b)) ++missing;
    }
    for (const auto& [b, n] : delivered_) repeats += n - 1;
    return {missing, repeats};
  }

 private:
  std::atomic<bool> go_{true};
  mutable std::mutex mu_;
  std::map<std::string, int> delivered_;
  std::thread thread_;
};

// How many times `needle` occurs in the replica log segments of `topic`.
inline int count_in_log(const std::filesystem::path& data_dir, const std::string& topic,
                        const std::string& needle) {
  std::string all;
  for (const auto& e : std::filesystem::directory_iterator(data_dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(topic + ".replica.") && name.ends_with(".log")) {
      all += testutil::read_file(e.path());
    }
  }
  int n = 0;
  for (std::size_t at = all.find(needle); at != std::string::npos; at = all.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// How many of `bodies` the replica log of `topic` does not hold exactly
// once (the log read once, record by record: [u32 size][u32 crc][u32
// epoch][i64 defer][i64 timestamp][u16 attempts][16-byte id][body]).
inline std::size_t not_once_in_log(const std::filesystem::path& data_dir, const std::string& topic,
                                   const std::vector<std::string>& bodies) {
  std::vector<std::filesystem::path> segments;
  for (const auto& e : std::filesystem::directory_iterator(data_dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(topic + ".replica.") && name.ends_with(".log"))
      segments.push_back(e.path());
  }
  std::sort(segments.begin(), segments.end());
  std::map<std::string, int> held;
  for (const auto& path : segments) {
    const std::string log = testutil::read_file(path);
    std::size_t at = 0;
    while (at + 8 <= log.size()) {
      const auto* p = reinterpret_cast<const unsigned char*>(log.data() + at);
      const std::size_t size = std::size_t(p[0]) << 24 | std::size_t(p[1]) << 16 |
                               std::size_t(p[2]) << 8 | std::size_t(p[3]);
      if (size < 12 + 26 || at + 8 + size > log.size()) break;
      ++held[log.substr(at + 20 + 26, size - 12 - 26)];
      at += 8 + size;
    }
  }
  std::size_t off = 0;
  for (const auto& b : bodies) {
    auto it = held.find(b);
    if (it == held.end() || it->second != 1) ++off;
  }
  return off;
}

}  // namespace nsq::integration
