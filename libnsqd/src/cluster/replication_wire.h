#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

// The bodies of CLUSTER_FETCH (docs/replication.md, "The data path"):
// a follower asks the leader of several topics for their records in one
// request, and the answer carries, per topic, the records and the commit
// point. Binary, big-endian, no I/O here; strings are [u16 length][bytes].
//
// Request:  [u32 wait ms][u32 max bytes per topic][str node][u16 n] then n x
//           [str topic][u32 epoch][u32 last epoch in the follower's log][u64 offset]
//           [u64 durable]
// Answer:   [u16 n] then n x
//           [str topic][u8 status][u32 epoch][u64 value][u32 length][records]
//           [u32 length][delivery progress (progress.h); empty: unchanged]
namespace nsq::nsqd::cluster::wire {

struct FetchTopic {
  std::string topic;
  std::uint32_t epoch = 0;      // the epoch the follower follows (from etcd)
  std::uint32_t log_epoch = 0;  // the last epoch in its own log
  std::uint64_t offset = 0;     // its log's end: where the records asked for begin
  // What of its log it has fsynced (at most offset): the follower writes
  // what it fetched and asks for more while an fsync of it runs, so a
  // request confirms what an earlier one brought (docs/replication.md).
  std::uint64_t durable = 0;

  bool operator==(const FetchTopic&) const = default;
};

struct FetchRequest {
  std::uint32_t wait_ms = 0;  // how long the leader may hold an answer without records
  // Records per topic at most (at least one, however large); 0: a
  // confirmation of what is durable, answered at once without records.
  std::uint32_t max_bytes = 0;
  std::string node;  // the follower's id
  std::vector<FetchTopic> topics;

  bool operator==(const FetchRequest&) const = default;
};

enum class FetchStatus : std::uint8_t {
  ok = 0,          // value: the commit point; records from the offset asked
  not_leader = 1,  // this node does not lead the topic at that epoch; value: 0
  truncate = 2,    // the follower holds records this leader does not: value is
                   // where to cut its log before asking again
  restart = 3,     // the follower asked below the start of the leader's log
                   // (trimmed): value is where its log starts again, empty,
                   // and epoch the epoch of the leader's record there
};

struct FetchAnswer {
  std::string topic;
  FetchStatus status = FetchStatus::ok;
  std::uint32_t epoch = 0;  // the leader's epoch for the topic
  std::uint64_t value = 0;
  std::string records;
  std::string progress;  // encoded TopicProgress, sent when it changed

  bool operator==(const FetchAnswer&) const = default;
};

std::string encode(const FetchRequest& request);
std::string encode(const std::vector<FetchAnswer>& answers);
tl::expected<FetchRequest, std::string> decode_request(std::string_view body);
tl::expected<std::vector<FetchAnswer>, std::string> decode_answers(std::string_view body);

}  // namespace nsq::nsqd::cluster::wire
