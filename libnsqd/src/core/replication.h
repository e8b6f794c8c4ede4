#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/message.h"

namespace nsq::nsqd {

// What publishing needs from cluster mode (docs/replication.md), so the
// protocol and HTTP handlers do not depend on src/cluster. The Broker holds
// one only in cluster mode.
//
// Thread safety: every member may be called from any thread; callbacks run
// on a replication thread.

// When a message published now with delay `defer` is due (Unix ms; 0: at once).
inline std::int64_t defer_until_ms(std::chrono::milliseconds defer) {
  if (defer.count() <= 0) return 0;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::milliseconds>(now + defer).count();
}

class Replication {
 public:
  virtual ~Replication() = default;

  // Whether this node may take a publish for `topic` now: returned at once
  // when known, else (a topic just created, not placed yet; a takeover
  // running) `done` gets it later, and soon.
  struct Admission {
    std::uint32_t epoch = 0;  // accepted: the epoch to write its records with
    std::string refusal;      // why not (for E_PUB_FAILED / HTTP 503); "" when accepted
    std::string leader_http;  // refused as not the leader: where the leader is, when known
    bool accepted() const { return refusal.empty(); }
  };
  virtual std::optional<Admission> admit(const std::string& topic,
                                         std::function<void(Admission)> done) = 0;

  // Publishes on the topic's leader, for a node that is not it (blocking:
  // run it on the blocking pool). "" once the leader answered OK, else why
  // not. A publish that was itself forwarded is never forwarded again.
  virtual std::string forward(const std::string& leader_http, const std::string& topic,
                              const std::vector<std::string>& bodies,
                              std::chrono::milliseconds defer) = 0;

  // Appends messages with `bodies` (read only during the call) to the
  // topic's replica log as records of the admitted `epoch`, each not
  // delivered before `defer_until_ms` (Unix ms; 0: at once). The log gives
  // them their ids. `done` once they are committed (fsynced on enough
  // in-sync replicas), with the messages for the topic's channels, or with
  // the reason they are not.
  struct Replicated {
    std::error_code error;
    std::vector<MessageRef> messages;
  };
  virtual void replicate(const std::string& topic, std::uint32_t epoch,
                         std::span<const std::string_view> bodies, std::int64_t defer_until_ms,
                         std::function<void(Replicated)> done) = 0;

  // A follower's fetch (CLUSTER_FETCH; `body` is read only during the
  // call): `reply(status, answer)` at once, or when records come within the
  // wait it asks for. 200 with the answer; 400 for a body that does not
  // decode; 503 while this node stops.
  using FetchReply = std::function<void(int status, std::string answer)>;
  virtual void fetch(std::string_view body, FetchReply reply) = 0;
};

}  // namespace nsq::nsqd
