#pragma once

// Shared by the TLS, compression and AUTH integration tests: IDENTIFY with
// feature negotiation through a FeatureClient, the upgrades in the spec's
// order, and a pub/sub round trip that checks every body.

#include <rapidjson/document.h>

#include <set>
#include <string>
#include <vector>

#include "integration/feature_client.h"
#include "integration/harness.h"

namespace nsq::integration {

struct Upgrades {
  bool tls = false;
  bool snappy = false;
  bool deflate = false;
  int deflate_level = 0;
  TlsClientOptions tls_options;
};

inline std::string identify_body(const Upgrades& u) {
  std::string j = "{\"feature_negotiation\":true,\"user_agent\":\"feature-test\"";
  if (u.tls) j += ",\"tls_v1\":true";
  if (u.snappy) j += ",\"snappy\":true";
  if (u.deflate) j += ",\"deflate\":true,\"deflate_level\":" + std::to_string(u.deflate_level);
  return j + "}";
}

// Connects, IDENTIFYs and performs the upgrades the server granted; returns
// the IDENTIFY JSON response ("" and a test failure when something broke).
inline std::string connect_upgraded(FeatureClient& c, int port, const Upgrades& u) {
  if (!c.connect(port) || !c.identify(identify_body(u))) {
    ADD_FAILURE() << "connect/IDENTIFY failed";
    return "";
  }
  auto json = c.read_frame(kReply);
  if (!json || json->type != FrameType::response || json->data.empty() || json->data[0] != '{') {
    ADD_FAILURE() << "no IDENTIFY JSON response";
    return "";
  }
  rapidjson::Document d;
  d.Parse(json->data.c_str());
  if (d.HasParseError()) {
    ADD_FAILURE() << "bad JSON " << json->data;
    return "";
  }
  if (d["tls_v1"].GetBool()) {
    if (std::string err = c.start_tls(u.tls_options); !err.empty()) {
      ADD_FAILURE() << err;
      return "";
    }
    auto ok = c.read_frame(kReply);
    if (!ok || ok->data != "OK") {
      ADD_FAILURE() << "no OK after the TLS upgrade";
      return "";
    }
  }
  if (d["snappy"].GetBool() || d["deflate"].GetBool()) {
    bool started =
        d["snappy"].GetBool() ? c.start_snappy() : c.start_deflate(d["deflate_level"].GetInt());
    auto ok = c.read_frame(kReply);
    if (!started || !ok || ok->data != "OK") {
      ADD_FAILURE() << "no OK after the compression upgrade";
      return "";
    }
  }
  return json->data;
}

inline std::string mpub_command(const std::string& topic, const std::vector<std::string>& bodies) {
  std::string body = be32(static_cast<uint32_t>(bodies.size()));
  for (const auto& b : bodies) body += be32(static_cast<uint32_t>(b.size())) + b;
  return "MPUB " + topic + "\n" + be32(static_cast<uint32_t>(body.size())) + body;
}

// `count` distinct bodies through `producer` (MPUB batches) and back through
// `consumer` (already subscribed to `topic`); every body checked, FINed.
inline ::testing::AssertionResult round_trip(FeatureClient& producer, FeatureClient& consumer,
                                             const std::string& topic, int count) {
  auto body = [](int i) { return "msg-" + std::to_string(i) + "-" + std::string(i % 300, 'z'); };
  consumer.send("RDY 500\n");
  for (int start = 0; start < count; start += 500) {
    std::vector<std::string> batch;
    for (int i = start; i < std::min(count, start + 500); ++i) batch.push_back(body(i));
    producer.send(mpub_command(topic, batch));
    auto ok = producer.read_frame(kReply);
    if (!ok || ok->data != "OK") return ::testing::AssertionFailure() << "MPUB not OK";
  }
  std::set<std::string> want;
  for (int i = 0; i < count; ++i) want.insert(body(i));
  std::set<std::string> got;
  while (static_cast<int>(got.size()) < count) {
    auto f = consumer.read_frame(kReply);
    if (!f) return ::testing::AssertionFailure() << "stream ended after " << got.size();
    auto m = testutil::to_test_message(*f);
    if (!m) return ::testing::AssertionFailure() << "not a message: " << f->data;
    if (!want.count(m->body)) return ::testing::AssertionFailure() << "corrupt body " << m->body;
    if (!got.insert(m->body).second) return ::testing::AssertionFailure() << "duplicate";
    consumer.send("FIN " + m->id + "\n");
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult subscribe(FeatureClient& c, const std::string& topic,
                                            const std::string& channel) {
  c.send("SUB " + topic + " " + channel + "\n");
  auto ok = c.read_frame(kReply);
  if (!ok || ok->data != "OK") {
    return ::testing::AssertionFailure() << "SUB: " << (ok ? ok->data : std::string("nothing"));
  }
  return ::testing::AssertionSuccess();
}

// The next frame is error `want`, then the connection closes.
inline ::testing::AssertionResult fatal_error(FeatureClient& c, const std::string& want) {
  auto f = c.read_frame(kReply);
  if (!f || f->type != FrameType::error || f->data != want) {
    return ::testing::AssertionFailure()
           << "wanted " << want << ", got " << (f ? f->data : std::string("nothing"));
  }
  if (!c.wait_closed(kReply)) return ::testing::AssertionFailure() << "not closed after " << want;
  return ::testing::AssertionSuccess();
}

}  // namespace nsq::integration
