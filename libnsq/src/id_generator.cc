#include "nsq/id_generator.h"

#include <cassert>

#include "nsq/error.h"

namespace nsq {
namespace {

constexpr int kSequenceBits = 12;
constexpr int kNodeIdBits = 10;
constexpr int64_t kSequenceMask = (int64_t{1} << kSequenceBits) - 1;

}  // namespace

IdGenerator::IdGenerator(int64_t node_id) : node_id_(node_id & kMaxNodeId) {
  assert(node_id >= 0 && node_id <= kMaxNodeId);
}

Result<MessageId> IdGenerator::next(int64_t unix_nanos) {
  const int64_t ts = unix_nanos >> 20;  // units of 1.048576 ms
  if (ts < last_ts_) return tl::unexpected(make_error_code(errc::id_clock_backwards));
  if (ts == last_ts_) {
    // On wrap the sequence stays 0, so later calls in this ts produce ids
    // <= last_id_ and keep failing until the clock moves on.
    sequence_ = (sequence_ + 1) & kSequenceMask;
    if (sequence_ == 0) return tl::unexpected(make_error_code(errc::id_sequence_exhausted));
  } else {
    sequence_ = 0;
  }
  last_ts_ = ts;
  // Unsigned shift: a clock before the epoch must not be undefined behaviour
  // (it gives an id <= last_id_ and fails below).
  const auto id = static_cast<int64_t>(
      (static_cast<uint64_t>(ts - kIdEpoch) << (kSequenceBits + kNodeIdBits)) |
      static_cast<uint64_t>(node_id_ << kSequenceBits) | static_cast<uint64_t>(sequence_));
  if (id <= last_id_) return tl::unexpected(make_error_code(errc::id_not_increasing));
  last_id_ = id;
  return format_message_id(static_cast<uint64_t>(id));
}

MessageId format_message_id(uint64_t id) noexcept {
  constexpr char kHex[] = "0123456789abcdef";
  MessageId out;
  for (int i = 15; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kHex[id & 0xf];
    id >>= 4;
  }
  return out;
}

}  // namespace nsq
