#pragma once

#include <system_error>
#include <type_traits>

namespace nsq::nsqd {

// Expected failures of the broker core, as std::error_code (the libnsqd
// convention: see libnsqd/README.md). A disk failure stays the disk
// queue's own code (nsq::diskqueue::errc or errno).
enum class errc {
  exiting = 1,  // the topic or channel is being deleted, or nsqd is shutting down
  full,         // a topic or channel with max_depth and the reject policy holds that many
  // Cluster mode's replica log (docs/replication.md):
  log_corrupt,          // a segment that cannot be read back as records
  log_out_of_range,     // an offset before the log's start or past its end
  not_leader,           // this node does not lead the topic (any more)
  not_enough_replicas,  // fewer in-sync replicas than --min-insync-replicas
  replication_timeout,  // the in-sync replicas did not confirm in time
};

const std::error_category& error_category() noexcept;

inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

}  // namespace nsq::nsqd

template <>
struct std::is_error_code_enum<nsq::nsqd::errc> : std::true_type {};
