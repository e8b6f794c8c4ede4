#pragma once

// The pure half of lookup_client.cc: what nsqd makes of nsqlookupd's
// answers (no I/O), so a fuzz target can reach it without sockets.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsq::nsqd {

// From a lookupd's IDENTIFY answer: where its HTTP API is (for channels_of).
struct LookupdPeerInfo {
  std::string broadcast_address;  // "" when absent or not a string
  int http_port = 0;              // 0 when absent, not an integer or not a TCP port
};

// The IDENTIFY answer: nullopt when the lookupd refused ("E_INVALID") or
// answered something other than a JSON object.
std::optional<LookupdPeerInfo> parse_lookupd_identify(std::string_view response);

// The channel names in a GET /channels answer ({"channels": [...]}); empty
// when the body has none or is not such an object. Non-string entries are
// skipped.
std::vector<std::string> parse_lookupd_channels(std::string_view body);

}  // namespace nsq::nsqd
