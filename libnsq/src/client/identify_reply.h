#pragma once

// The pure half of the client's IDENTIFY step (connection.cc): what nsqd's
// answer means, no I/O, so the fuzz build can take it alone.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace nsq::client {

// nsqd's answer to IDENTIFY. A field nsqd left out (or sent with another
// type) is nullopt / false: the connection keeps its default.
struct IdentifyReply {
  std::optional<int64_t> max_rdy_count;
  std::optional<int64_t> msg_timeout_ms;
  std::optional<bool> auth_required;
  // The upgrades nsqd agreed to; each is then expected to answer OK.
  bool tls_v1 = false;
  bool deflate = false;
  bool snappy = false;
};

// The body of nsqd's response frame: "OK" (an nsqd without feature
// negotiation: nothing negotiated) or a JSON object. Anything else is the
// error text the connection fails with.
tl::expected<IdentifyReply, std::string> parse_identify_reply(std::string_view data);

}  // namespace nsq::client
