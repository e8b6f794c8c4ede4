#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "cluster_stats.h"
#include "nsq/stats/model.h"
#include "options.h"

namespace nsq::stat {

// One poll of Go's nsq_stat: the producers of the topic, then the sum of
// their stats for the channel. The error is the whole fatal text, e.g.
// "ERROR: failed to find channel(c) in stats metadata for topic(t)".
tl::expected<stats::ChannelCounts, std::string> poll_channel(const Fetch& fetch,
                                                             const Options& options);

// What the loop needs from the outside world (the real ones in main, fakes
// in tests).
struct StatLoopIo {
  Fetch fetch;
  std::function<void(std::string_view)> print;  // stdout, flushed
  std::function<void(std::chrono::nanoseconds)> sleep;
};

// Go's statLoop: polls count+1 times (the first only records a baseline;
// forever without --count), headers before every 25th poll, one report line
// per later poll, sleeping the interval between polls. Returns the fatal
// text on the first failing poll, nothing once count lines are printed.
tl::expected<void, std::string> run_stat_loop(const Options& options, const StatLoopIo& io);

}  // namespace nsq::stat
