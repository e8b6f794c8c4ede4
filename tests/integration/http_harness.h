#pragma once

// Shared pieces of the HTTP API integration tests (http-api.md): a fixture
// that starts nsqd with its HTTP listener and a keep-alive client to it, and
// assertions for the V1 response conventions (§1).

#include <rapidjson/document.h>

#include <filesystem>
#include <string>
#include <vector>

#include "integration/harness.h"
#include "testutil/files.h"
#include "testutil/http_client.h"

namespace nsq::integration {

using testutil::HttpClient;
using testutil::HttpReply;
using Reply = std::optional<HttpReply>;

inline constexpr const char* kV1Header = "nsq; version=1.0";
inline constexpr const char* kJsonType = "application/json; charset=utf-8";

inline std::string show(const Reply& r) { return r ? r->describe() : std::string("no response"); }

// §1: an error reply: status, V1 header, JSON content type, body exactly {"message":"<msg>"}.
inline ::testing::AssertionResult is_v1_error(const Reply& r, int status, const std::string& msg) {
  if (!r)
    return ::testing::AssertionFailure() << "no response (wanted " << status << " " << msg << ")";
  std::string want = R"({"message":")" + msg + R"("})";
  if (r->status != status || r->body != want)
    return ::testing::AssertionFailure()
           << "wanted " << status << " " << want << ", got " << r->describe();
  if (r->header("x-nsq-content-type") != kV1Header)
    return ::testing::AssertionFailure() << "missing X-NSQ-Content-Type: " << r->describe();
  if (r->header("content-type") != kJsonType)
    return ::testing::AssertionFailure()
           << "content type not '" << kJsonType << "': " << r->describe();
  return ::testing::AssertionSuccess();
}

// §1: a 200 whose body is exactly `body` (a string result or an empty one), with the V1 header.
inline ::testing::AssertionResult is_v1_ok(const Reply& r, const std::string& body) {
  if (!r) return ::testing::AssertionFailure() << "no response (wanted 200 '" << body << "')";
  if (r->status != 200 || r->body != body)
    return ::testing::AssertionFailure() << "wanted 200 '" << body << "', got " << r->describe();
  if (r->header("x-nsq-content-type") != kV1Header)
    return ::testing::AssertionFailure() << "missing X-NSQ-Content-Type: " << r->describe();
  return ::testing::AssertionSuccess();
}

// Member names of a JSON object, in document order.
inline std::vector<std::string> keys_of(const rapidjson::Value& v) {
  std::vector<std::string> out;
  if (!v.IsObject()) return out;
  for (auto& m : v.GetObject()) out.emplace_back(m.name.GetString(), m.name.GetStringLength());
  return out;
}

inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// Find the member of array `arr` whose string field `field` is `name`, nullptr if none.
inline const rapidjson::Value* find_named(const rapidjson::Value& arr, const char* field,
                                          const std::string& name) {
  if (!arr.IsArray()) return nullptr;
  for (auto& e : arr.GetArray())
    if (e.IsObject() && e.HasMember(field) && e[field].IsString() && name == e[field].GetString())
      return &e;
  return nullptr;
}

inline int64_t int_of(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject() || !obj.HasMember(key) || !obj[key].IsInt64()) {
    ADD_FAILURE() << "no integer '" << key << "'";
    return -1;
  }
  return obj[key].GetInt64();
}

class HttpTest : public NsqdTest {
 protected:
  // Starts nsqd (its own temp dir, ephemeral ports) and waits for its HTTP listener.
  void start_http(std::vector<std::string> extra = {}) {
    start(std::move(extra));
    if (HasFatalFailure()) return;
    if (!need_http()) GTEST_SKIP() << "nsqd has no HTTP listener (no 'HTTP: listening on' line)";
    api_ = std::make_unique<HttpClient>(http_port());
  }

  // One request on the fixture's keep-alive connection (reconnects when the server closed it).
  Reply req(std::string_view method, std::string_view target, std::string_view body = {},
            const HttpClient::Headers& headers = {}) {
    auto r = api_->request(method, target, body, headers);
    if (!r) ADD_FAILURE() << method << " " << target << ": " << api_->last_error();
    return r;
  }
  Reply get(std::string_view target) { return req("GET", target); }
  Reply post(std::string_view target, std::string_view body = {}) {
    return req("POST", target, body);
  }

  // GET /stats?format=json&<query> parsed into doc_; false (with a failure) if not 200 JSON.
  ::testing::AssertionResult stats(const std::string& query = {}) {
    auto r = get("/stats?format=json" + (query.empty() ? std::string() : "&" + query));
    if (!r || r->status != 200) return ::testing::AssertionFailure() << "/stats: " << show(r);
    stats_body_ = r->body;
    doc_ = std::make_unique<rapidjson::Document>();
    if (doc_->Parse(r->body.c_str(), r->body.size()).HasParseError() || !doc_->IsObject())
      return ::testing::AssertionFailure() << "/stats not JSON: " << r->body;
    return ::testing::AssertionSuccess();
  }

  // Topic `name` in the last stats(), nullptr if absent.
  const rapidjson::Value* topic(const std::string& name) {
    if (!doc_ || !doc_->HasMember("topics")) return nullptr;
    return find_named((*doc_)["topics"], "topic_name", name);
  }
  const rapidjson::Value* channel(const std::string& t, const std::string& c) {
    auto* tp = topic(t);
    if (!tp || !tp->HasMember("channels")) return nullptr;
    return find_named((*tp)["channels"], "channel_name", c);
  }

  // A topic/channel counter from a fresh /stats; -1 (and a failure) if missing.
  int64_t topic_stat(const std::string& t, const char* key) {
    if (!stats("topic=" + t)) return -1;
    auto* tp = topic(t);
    if (!tp) {
      ADD_FAILURE() << "topic " << t << " not in stats: " << stats_body_;
      return -1;
    }
    return int_of(*tp, key);
  }
  int64_t channel_stat(const std::string& t, const std::string& c, const char* key) {
    if (!stats("topic=" + t)) return -1;
    auto* ch = channel(t, c);
    if (!ch) {
      ADD_FAILURE() << "channel " << t << "/" << c << " not in stats: " << stats_body_;
      return -1;
    }
    return int_of(*ch, key);
  }

  // Polls /stats until `pred` holds (a state change made by another connection); bounded.
  template <class Pred>
  bool stats_eventually(Pred pred, ms timeout = kReply) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (stats() && pred()) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
  }

  std::string dat() { return testutil::read_file(data_dir_.path() / "nsqd.dat"); }

  // Waits until nsqd.dat contains `needle` (it may be written asynchronously); bounded.
  bool dat_eventually(const std::string& needle, ms timeout = kReply) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (dat().find(needle) != std::string::npos) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
  }

  // Waits until nsqd.dat no longer contains `needle`; bounded.
  bool dat_eventually_without(const std::string& needle, ms timeout = kReply) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      std::string d = dat();
      if (!d.empty() && d.find(needle) == std::string::npos) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
  }

  std::unique_ptr<HttpClient> api_;
  std::unique_ptr<rapidjson::Document> doc_;
  std::string stats_body_;
};

}  // namespace nsq::integration
