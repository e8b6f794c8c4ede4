#pragma once

// Shared pieces of the client integration tests: our real nsqd (and
// nsqlookupd) on ephemeral ports, /stats read over HTTP, and a thread-safe
// record of what a consumer's handler saw.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "nsq/client/config.h"
#include "testutil/http_client.h"
#include "testutil/nsqd_process.h"
#include "testutil/temp_dir.h"

namespace nsq::client::test {

using namespace std::chrono_literals;
using ms = std::chrono::milliseconds;

inline constexpr ms kEventTimeout{20000};

struct RunningNsqd {
  testutil::TempDir dir;
  testutil::NsqdProcess process;

  std::string start(std::vector<std::string> extra_args = {}) {
    testutil::NsqdProcess::Options o;
    o.data_path = dir.path();
    o.extra_args = std::move(extra_args);
    o.require_http = true;
    return process.start(o);
  }
  std::string tcp_address() const { return "127.0.0.1:" + std::to_string(process.tcp_port()); }

  // GET /stats?format=json&topic=..; a null document on failure.
  std::unique_ptr<rapidjson::Document> stats(const std::string& topic) const {
    auto r = testutil::http_once(process.http_port(), "GET", "/stats?format=json&topic=" + topic);
    auto doc = std::make_unique<rapidjson::Document>();
    if (!r || r->status != 200) return doc;
    doc->Parse(r->body.c_str());
    return doc;
  }

  // A channel's numeric field ("client_count": its number of clients), -1
  // if absent.
  int64_t channel_stat(const std::string& topic, const std::string& channel,
                       const std::string& field) const {
    int64_t out = -1;
    for_channel(topic, channel, [&](const rapidjson::Value& c) {
      if (field == "client_count") {
        out = c.HasMember("clients") && c["clients"].IsArray() ? c["clients"].Size() : 0;
      } else if (c.HasMember(field.c_str()) && c[field.c_str()].IsInt64()) {
        out = c[field.c_str()].GetInt64();
      }
    });
    return out;
  }

  // ready_count of each client of the channel.
  std::vector<int64_t> client_rdy(const std::string& topic, const std::string& channel) const {
    std::vector<int64_t> out;
    for_channel(topic, channel, [&](const rapidjson::Value& c) {
      if (!c.HasMember("clients") || !c["clients"].IsArray()) return;
      for (const auto& cl : c["clients"].GetArray()) out.push_back(cl["ready_count"].GetInt64());
    });
    return out;
  }

  void for_channel(const std::string& topic, const std::string& channel,
                   const std::function<void(const rapidjson::Value&)>& f) const {
    auto doc = stats(topic);
    if (!doc->IsObject() || !doc->HasMember("topics") || !(*doc)["topics"].IsArray()) return;
    for (const auto& t : (*doc)["topics"].GetArray()) {
      if (t["topic_name"].GetString() != topic || !t["channels"].IsArray()) continue;
      for (const auto& c : t["channels"].GetArray())
        if (c["channel_name"].GetString() == channel) f(c);
    }
  }

  // Polls `pred` (against /stats) until true or the timeout; the state
  // change is made by another process, so there is no event to wait on.
  bool eventually(const std::function<bool()>& pred, ms timeout = kEventTimeout) const {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(20ms);
    }
    return pred();
  }
};

// A test config: quick polls and redistribution, no waiting on defaults.
inline Config fast_config() {
  Config c;
  c.lookupd_poll_interval = 200ms;
  c.lookupd_poll_jitter = 0;
  c.rdy_redistribute_interval = 100ms;
  return c;
}

// What handlers saw, waitable.
class Seen {
 public:
  void add(const std::string& body, int attempts) {
    {
      std::lock_guard lock(mu_);
      bodies_.push_back(body);
      attempts_[body].push_back(attempts);
    }
    cv_.notify_all();
  }
  bool wait_count(std::size_t n, ms timeout = kEventTimeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return bodies_.size() >= n; });
  }
  std::vector<std::string> bodies() const {
    std::lock_guard lock(mu_);
    return bodies_;
  }
  std::vector<int> attempts(const std::string& body) const {
    std::lock_guard lock(mu_);
    auto it = attempts_.find(body);
    return it == attempts_.end() ? std::vector<int>{} : it->second;
  }
  std::size_t count() const {
    std::lock_guard lock(mu_);
    return bodies_.size();
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> bodies_;
  std::map<std::string, std::vector<int>> attempts_;
};

}  // namespace nsq::client::test
