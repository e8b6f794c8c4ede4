#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>

#include "socket.h"

namespace nsq::bench {

struct GroupCommitResult {
  uint64_t acknowledged = 0;  // replies received by the clients
  uint64_t fsyncs = 0;
  double secs = 0;
};

// The most acknowledged messages per second this machine allows when every
// acknowledgement must follow an fdatasync and `clients` connections each
// wait for their reply before sending again: the --sync-publish scenario
// with no broker in it. A server thread reads whatever the clients sent,
// writes it with one pwrite into a file of `dir` (zero-filled beforehand,
// as nsqd's preallocated segments), fdatasyncs, and answers each message
// with a 10-byte frame (an nsqd OK response); the clients are threads with
// blocking sockets, as the writer mode's. No protocol, no queue, no other
// thread: what nsqd reaches in the same scenario is read as a fraction of
// this, the machine's bound for the shape of the load (fsync latency and
// the request/response turnaround in series), which the fsync rate alone
// overstates.
Expected<GroupCommitResult> measure_group_commit(const std::filesystem::path& dir, int clients,
                                                 int message_size,
                                                 std::chrono::nanoseconds duration);

}  // namespace nsq::bench
