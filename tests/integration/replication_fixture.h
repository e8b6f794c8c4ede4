#pragma once

// A real etcd and up to three real nsqd in cluster mode on loopback, for the
// replication tests (docs/replication.md).

#include <rapidjson/document.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
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
  NsqdProcess* start_node(std::vector<std::string> extra = {}, std::string binary = {}) {
    auto node = std::make_unique<NsqdProcess>();
    NsqdProcess::Options o;
    o.binary = std::move(binary);
    o.data_path = dir_.path() / ("node" + std::to_string(nodes_.size()));
    std::filesystem::create_directories(o.data_path);
    o.require_http = true;
    o.extra_args = {"--broadcast-address=127.0.0.1", "--etcd-endpoints=" + etcd_.endpoint(),
                    "--cluster-lease-ttl=" + std::to_string(lease_ttl_s_) + "s"};
    o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
    const std::string err = node->start(o);
    if (!err.empty()) {
      ADD_FAILURE() << err;
      return nullptr;
    }
    if (!node->wait_for_log("CLUSTER: joined", kReply)) {
      ADD_FAILURE() << "never joined: " << node->log();
      return nullptr;
    }
    nodes_.push_back(std::move(node));
    return nodes_.back().get();
  }

  static std::string id(NsqdProcess* node) {
    return "127.0.0.1:" + std::to_string(node->tcp_port());
  }

  static std::optional<testutil::HttpReply> http(NsqdProcess* node, std::string_view method,
                                                 std::string_view target,
                                                 std::string_view body = {}) {
    HttpClient client(node->http_port());
    return client.request(method, target, body);
  }

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
      return out;
    }
    return std::nullopt;
  }

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

  // Long enough that a loaded machine (CI) does not miss a keep-alive.
  int lease_ttl_s_ = 3;
  testutil::TempDir dir_;
  EtcdProcess etcd_;
  std::vector<std::unique_ptr<NsqdProcess>> nodes_;
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

}  // namespace nsq::integration
