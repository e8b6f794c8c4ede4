#include "stat_loop.h"

#include <optional>

#include "report_format.h"

namespace nsq::stat {

tl::expected<stats::ChannelCounts, std::string> poll_channel(const Fetch& fetch,
                                                             const Options& options) {
  auto producers =
      options.lookupd_http_addresses.empty()
          ? nsqd_topic_producers(fetch, options.topic, options.nsqd_http_addresses)
          : lookupd_topic_producers(fetch, options.topic, options.lookupd_http_addresses);
  if (!producers) {
    return tl::unexpected("ERROR: failed to get topic producers - " + producers.error());
  }
  auto channels = producers_channel_stats(fetch, *producers, options.topic, options.channel);
  if (!channels) return tl::unexpected("ERROR: failed to get nsqd stats - " + channels.error());
  auto it = channels->find(options.channel);
  if (it == channels->end()) {
    return tl::unexpected("ERROR: failed to find channel(" + options.channel +
                          ") in stats metadata for topic(" + options.topic + ")");
  }
  return it->second;
}

tl::expected<void, std::string> run_stat_loop(const Options& options, const StatLoopIo& io) {
  std::optional<stats::ChannelCounts> previous;
  for (int i = 0; !options.count || *options.count >= i; ++i) {
    auto current = poll_channel(io.fetch, options);
    if (!current) return tl::unexpected(current.error());
    if (i % kHeaderEvery == 0) io.print(header_lines());
    if (previous) io.print(report_line(*previous, *current, options.interval));
    previous = *current;
    // Go sleeps after the last poll too; nothing is printed after it, so
    // exiting at once only saves the user an interval.
    if (options.count && i == *options.count) break;
    io.sleep(options.interval);
  }
  return {};
}

}  // namespace nsq::stat
