#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

// A publish taken by a node that does not lead the topic, passed on to the
// leader's HTTP API (docs/replication.md, "Publishing to a follower").
namespace nsq::nsqd::cluster {

// The header that marks a forwarded publish: the leader never forwards it
// again (a stale view on both sides cannot make a loop).
inline constexpr std::string_view kForwardedHeader = "X-NSQ-Forwarded";

// POSTs `bodies` to the leader at `leader_http` (host:port): /pub (with
// defer=) for one, /mpub?binary=true for several. Blocking. "" once the
// leader answered 200, else why not (its message, or the transport's).
std::string forward_publish(const std::string& leader_http, const std::string& topic,
                            const std::vector<std::string>& bodies, std::chrono::milliseconds defer,
                            std::chrono::milliseconds connect_timeout,
                            std::chrono::milliseconds request_timeout);

}  // namespace nsq::nsqd::cluster
