// nsq_to_file: consumes topics and appends every message as a line to
// rotated, optionally gzipped files; FINs only what is synced to disk
// (Go nsq_to_file v1.3.0).
#include <poll.h>
#include <spdlog/spdlog.h>

#include <csignal>

#include "common/process_exit.h"
#include "common/termination_signals.h"
#include "lookupd_topics.h"
#include "nsq/go_logger.h"
#include "options.h"
#include "topic_discoverer.h"

int main(int argc, char** argv) {
  nsq::tools::TerminationSignals signals({SIGHUP});
  std::signal(SIGPIPE, SIG_IGN);

  const nsq::to_file::Options options = nsq::to_file::parse_options(argc, argv);

  auto log = nsq::make_go_logger("nsq_to_file", options.log_prefix,
                                 *nsq::to_file::parse_log_level(options.log_level));
  auto client_log = nsq::make_go_client_logger("nsq_to_file_client");

  nsq::to_file::TopicDiscoverer discoverer(options, log, client_log, [&options] {
    return nsq::to_file::fetch_lookupd_topics(
        options.sources.lookupd_http, options.http_connect_timeout, options.http_request_timeout);
  });
  discoverer.run([&signals](std::chrono::milliseconds timeout) -> std::optional<int> {
    pollfd pfd{signals.fd(), POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
    return signals.next();
  });
  log->flush();
  nsq::tools::exit_now(0);
}
