#include "report_format.h"

#include <cinttypes>
#include <cstdio>

namespace nsq::stat {

std::string header_lines() {
  std::string out =
      "------rate------+----------------depth----------------+--------------metadata---------------"
      "\n";
  char line[128];
  std::snprintf(line, sizeof line, "%7s %7s | %7s %7s %7s %5s %5s | %7s %7s %12s %7s\n", "ingress",
                "egress", "total", "mem", "disk", "inflt", "def", "req", "t-o", "msgs", "clients");
  out += line;
  return out;
}

std::string report_line(const stats::ChannelCounts& previous, const stats::ChannelCounts& current,
                        std::chrono::nanoseconds interval) {
  const double seconds = std::chrono::duration<double>(interval).count();
  // Go's clusterinfo counts are int64: a count that went down (an nsqd
  // restarted) gives a negative rate, not a wrapped one.
  const auto message_count = static_cast<int64_t>(current.message_count);
  const int64_t messages = message_count - static_cast<int64_t>(previous.message_count);
  const int64_t depth = current.depth - previous.depth;
  const auto ingress = static_cast<int64_t>(static_cast<double>(messages) / seconds);
  const auto egress = static_cast<int64_t>(static_cast<double>(messages - depth) / seconds);
  char line[256];
  std::snprintf(line, sizeof line,
                "%7" PRId64 " %7" PRId64 " | %7" PRId64 " %7" PRId64 " %7" PRId64 " %5" PRId64
                " %5" PRId64 " | %7" PRId64 " %7" PRId64 " %12" PRId64 " %7" PRId64 "\n",
                ingress, egress, current.depth, current.memory_depth(), current.backend_depth,
                current.in_flight_count, current.deferred_count,
                static_cast<int64_t>(current.requeue_count),
                static_cast<int64_t>(current.timeout_count), message_count, current.client_count);
  return line;
}

}  // namespace nsq::stat
