#pragma once

#include <cstdint>
#include <string_view>

#include "nsq/message.h"
#include "nsq/result.h"

namespace nsq {

// Snowflake-style message ids, one generator per topic:
//   ts = unix_nanos >> 20
//   id = ((ts - kIdEpoch) << 22) | (node_id << 12) | sequence
// rendered as 16 lowercase hex characters. next() fails when the clock went
// back, the 12-bit sequence ran out within one ts, or the id would not
// increase; the caller sleeps 1 ms and retries (nsqd's policy, not ours).
//
// @par Thread Safety: none; guarded by the owning topic.
class IdGenerator {
 public:
  static constexpr int64_t kIdEpoch = 1288834974288;  // 2012-10-28 16:23:42 UTC >> 20
  static constexpr int64_t kMaxNodeId = 1023;

  // node_id must be in [0, 1024).
  explicit IdGenerator(int64_t node_id);

  Result<MessageId> next(int64_t unix_nanos);

  int64_t node_id() const noexcept { return node_id_; }

 private:
  int64_t node_id_;
  int64_t last_ts_ = 0;
  int64_t sequence_ = 0;
  int64_t last_id_ = 0;
};

// The 16 lowercase hex characters of a 64-bit id (big-endian digit order).
MessageId format_message_id(uint64_t id) noexcept;

// nsqd's default --node-id: CRC32-IEEE(MD5(hostname)) % 1024.
int64_t default_node_id(std::string_view hostname);

}  // namespace nsq
