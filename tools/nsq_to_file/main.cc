// nsq_to_file: consumes topics and appends every message as a line to
// rotated, optionally gzipped files; FINs only what is synced to disk
// (Go nsq_to_file v1.3.0).
#include <poll.h>
#include <spdlog/spdlog.h>

#include <csignal>

#include "common/client_logger.h"
#include "common/flag_exit.h"
#include "common/go_log.h"
#include "common/process_exit.h"
#include "common/termination_signals.h"
#include "common/version.h"
#include "lookupd_topics.h"
#include "nsq/go_logger.h"
#include "options.h"
#include "topic_discoverer.h"

namespace {

std::chrono::milliseconds to_ms(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

}  // namespace

int main(int argc, char** argv) {
  nsq::tools::TerminationSignals signals({SIGHUP});
  std::signal(SIGPIPE, SIG_IGN);

  nsq::to_file::Options options;
  // Go's nsq_to_file names its FlagSet "nsqd", hence "Usage of nsqd:".
  nsq::flags::FlagSet fs("nsqd");
  nsq::to_file::add_flags(fs, &options);
  nsq::tools::parse_flags_or_exit(fs, argc, argv);
  if (auto error = nsq::to_file::pre_version_error(options, fs.args())) {
    nsq::tools::log_fatal(*error);
  }
  nsq::tools::exit_if_version(options.show_version, "nsq_to_file");
  if (auto error = nsq::to_file::validation_error(options)) nsq::tools::log_fatal(*error);
  nsq::to_file::resolve_defaults(&options);
  options.consumer_config.user_agent = nsq::tools::user_agent("nsq_to_file");
  options.consumer_config.max_in_flight = options.max_in_flight;

  auto log = nsq::make_go_logger("nsq_to_file", options.log_prefix,
                                 *nsq::to_file::parse_log_level(options.log_level));
  auto client_log = nsq::tools::make_client_logger("nsq_to_file_client");

  nsq::to_file::TopicDiscoverer discoverer(options, log, client_log, [&options] {
    return nsq::to_file::fetch_lookupd_topics(options.sources.lookupd_http,
                                              to_ms(options.http_connect_timeout),
                                              to_ms(options.http_request_timeout));
  });
  discoverer.run([&signals](std::chrono::milliseconds timeout) -> std::optional<int> {
    pollfd pfd{signals.fd(), POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
    return signals.next();
  });
  log->flush();
  nsq::tools::exit_now(0);
}
