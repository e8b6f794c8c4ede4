// nsqd: flags and config file -> Options -> Server, until SIGINT/SIGTERM.
#include <memory>

#include <spdlog/spdlog.h>

#include "nsq/daemon.h"
#include "nsq/go_logger.h"
#include "nsq/open_file_limit.h"
#include "nsqd/options_parser.h"
#include "nsqd/server.h"

int main(int argc, char** argv) {
  auto parsed = nsq::nsqd::parse_nsqd_options(argc, argv);
  if (!parsed) return nsq::finish_parse(parsed.error());
  // Both enums list Go's levels in the same order.
  auto log = nsq::make_go_logger("nsqd", parsed->log_prefix,
                                 static_cast<nsq::GoLogLevel>(static_cast<int>(parsed->log_level)));
  nsq::raise_open_file_limit();
  nsq::ShutdownSignal shutdown;  // before any thread starts

  log->info("{}", nsq::nsqd::version_string(nsq::nsqd::current_parse_env().compiler));
  log->info("ID: {}", parsed->node_id);
  nsq::nsqd::Server server(std::move(*parsed), log);
  if (std::string error = server.start(); !error.empty()) {
    log->critical("{}", error);
    return 1;
  }
  shutdown.watch([&](int sig) {
    log->info("signal {} received, shutting down", sig);
    server.stop();
  });
  server.run();
  shutdown.stop();
  log->info("nsqd: exited cleanly");
  return 0;
}
