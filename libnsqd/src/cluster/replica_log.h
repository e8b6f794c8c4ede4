#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "cluster/log_record.h"

namespace nsq::nsqd::cluster {

// A topic's replica log (docs/replication.md, "The replica log"): framed
// records (log_record.h) appended to segment files
// `<topic>.replica.<first offset, 20 digits>.log` in the data directory, an
// offset being a byte position in the whole log; and the leader epochs with
// the offset each began at (KIP-101), in `<topic>.replica.epochs`. The same
// bytes on the leader and on every follower.
//
// Opening repairs a torn tail: the last segment is cut after its last whole,
// valid record (a crash mid-append leaves at most a partial record there;
// earlier segments were fsynced when the next one began).
//
// Thread safety: every member may be called from any thread; reads run
// beside appends, and sync() does not hold appends back.
// `<topic>.replica.state`: the delivery progress a replica last saved
// (docs/replication.md, "Channel progress"), beside the topic's log.
std::filesystem::path state_path(const std::filesystem::path& dir, const std::string& topic);

// Deletes a topic's log segments, epochs and state from `dir` (a topic
// deleted from the cluster); none of another topic's, whatever its name.
std::error_code remove_replica_files(const std::filesystem::path& dir, const std::string& topic);

class ReplicaLog {
 public:
  struct Options {
    std::filesystem::path dir;
    std::string topic;
    std::uint64_t segment_bytes = 104857600;  // --max-bytes-per-file
    std::size_t max_record = 1048576 + 64;    // --max-msg-size plus framing
    // The last segment is zero-filled this far ahead of its records (0:
    // off), so that the fsync of an append has no file size or block map to
    // commit, only data: a third fewer writes per fsync on ext4. Opening
    // takes zeros after the last record for what they are; a finished
    // segment and a closed log carry none.
    std::uint64_t preallocate_bytes = 1 << 20;
  };

  // What open() did to the files, for the log ("" when nothing).
  struct Opened {
    std::unique_ptr<ReplicaLog> log;
    std::string repaired;
  };
  static tl::expected<Opened, std::error_code> open(Options options);
  ~ReplicaLog();
  ReplicaLog(const ReplicaLog&) = delete;
  ReplicaLog& operator=(const ReplicaLog&) = delete;

  std::uint64_t start() const;        // the first offset held
  std::uint64_t end() const;          // the offset after the last record
  std::uint64_t durable_end() const;  // fsynced up to here

  // Appends whole framed records at end(); returns the new end. Written to
  // the page cache: durable once sync() returns.
  tl::expected<std::uint64_t, std::error_code> append(std::string_view framed);
  // Fsyncs what was appended before the call; durable_end() then covers it.
  std::error_code sync();

  // Whole records from `offset` (a record boundary), up to `max_bytes` (at
  // least one record, however large); "" at end(). log_out_of_range before
  // start() or past end().
  tl::expected<std::string, std::error_code> read(std::uint64_t offset,
                                                  std::size_t max_bytes) const;

  // Drops every record from `offset` (a record boundary) on, durably, and
  // the epochs that began there or later (a follower rejoining).
  std::error_code truncate(std::uint64_t offset);
  // Deletes the segments that end at or before `offset` (never the last).
  std::error_code trim(std::uint64_t offset);
  // Drops everything and starts again empty at `offset`, where `epoch`
  // (0: none) is in effect: a follower behind the start of its leader's log
  // (trimmed meanwhile).
  std::error_code restart_at(std::uint64_t offset, std::uint32_t epoch);

  // Records that `epoch` (greater than last_epoch()) begins at end().
  std::error_code begin_epoch(std::uint32_t epoch);
  std::uint32_t last_epoch() const;  // 0 when none began
  // Where `epoch` ended as this log knows it: the offset the next greater
  // epoch began at, or end() (what a leader answers a follower's EPOCH).
  std::uint64_t end_of_epoch(std::uint32_t epoch) const;
  // The epoch that wrote the record at `offset`, as far as this log knows
  // (the last epoch that began at or before it; 0 when none).
  std::uint32_t epoch_at(std::uint64_t offset) const;

 private:
  struct Segment {
    std::uint64_t start = 0;
    std::uint64_t size = 0;
    std::shared_ptr<const int> fd;  // closed with the last holder
    std::uint64_t filled = 0;       // the file holds records or zeros up to here (>= size)
  };

  explicit ReplicaLog(Options options) : options_(std::move(options)) {}
  std::filesystem::path segment_path(std::uint64_t start) const;
  std::filesystem::path epochs_path() const;
  tl::expected<Segment, std::error_code> create_segment(std::uint64_t start) const;
  std::error_code save_epochs() const;  // caller holds mu_
  // Caller holds mu_: zeros ahead of the last segment's records, up to at
  // least `end` (a failure is left to the write that follows).
  void fill_ahead_locked(std::uint64_t end);
  // Caller holds mu_: the last segment's file ends at its records again.
  std::error_code cut_fill_locked();
  std::uint64_t end_locked() const { return segments_.back().start + segments_.back().size; }

  const Options options_;
  std::mutex sync_mu_;  // one sync at a time; truncate and trim wait for it (taken before mu_)
  mutable std::mutex mu_;
  std::vector<Segment> segments_;  // guarded by mu_; sorted, contiguous, never empty
  std::uint64_t durable_end_ = 0;  // guarded by mu_
  std::vector<std::pair<std::uint32_t, std::uint64_t>> epochs_;  // guarded by mu_
};

}  // namespace nsq::nsqd::cluster
