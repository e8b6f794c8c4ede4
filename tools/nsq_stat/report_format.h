#pragma once

#include <chrono>
#include <string>

#include "nsq/stats/model.h"

// The text nsq_stat prints, byte for byte as Go's nsq_stat v1.3.0
// (spec/tools.md §3). Pure functions so the format is tested without a broker.
namespace nsq::stat {

// Header lines are printed before iteration 0, 25, 50, ...
inline constexpr int kHeaderEvery = 25;

// The two header lines, each ending in '\n'.
std::string header_lines();

// One report line ('\n'-terminated) for the poll `current` following
// `previous`, `interval` apart. Rates are Go's int64(float64(delta) /
// interval.Seconds()): truncated toward zero.
std::string report_line(const stats::ChannelCounts& previous, const stats::ChannelCounts& current,
                        std::chrono::nanoseconds interval);

}  // namespace nsq::stat
