#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "nsq/stats/model.h"

// GET /stats (text, the default format): the human-readable page of Go nsqd
// v1.3.0's printStats, line for line.
namespace nsq::nsqd {

// version_line is the first line without its newline, e.g.
// "nsqd v1.3.0 (built w/go1.21.4)"; now_unix gives uptime and client
// connection ages. start_time is printed as RFC 3339 in the local time zone.
std::string render_stats_text(const stats::Snapshot& s, std::string_view version_line,
                              std::int64_t now_unix);

namespace text {

// Go's quantile.NanoSecondToHuman: "%0.1f" with ns/us/ms/s, e.g. 1.5ms.
std::string nanoseconds_to_human(double ns);

// A percentile list as Go's quantile.Result.String: values joined by ", ".
std::string latency_list(const stats::Latency& l);

// time.Unix(t, 0).Format(time.RFC3339) in the local zone: 2006-01-02T15:04:05Z07:00.
std::string rfc3339_local(std::int64_t unix_seconds);

// A client line (without indentation) as Go's ClientV2Stats.String.
std::string client_line(const stats::Client& c, std::int64_t now_unix);

}  // namespace text
}  // namespace nsq::nsqd
