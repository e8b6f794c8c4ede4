// nsqlookupd: flags and config file -> Options -> Server, until SIGINT/SIGTERM.
#include <memory>

#include <spdlog/spdlog.h>

#include "lookupd/options_parser.h"
#include "lookupd/server.h"
#include "nsq/daemon.h"
#include "nsq/go_logger.h"
#include "nsq/open_file_limit.h"

int main(int argc, char** argv) {
  auto parsed = nsq::lookupd::parse_lookupd_options(argc, argv);
  if (!parsed) return nsq::finish_parse(parsed.error());
  // Both enums list Go's levels in the same order.
  auto log = nsq::make_go_logger("nsqlookupd", parsed->log_prefix,
                                 static_cast<nsq::GoLogLevel>(static_cast<int>(parsed->log_level)));
  nsq::raise_open_file_limit();
  nsq::ShutdownSignal shutdown;  // before any thread starts

  log->info("{}", nsq::lookupd::version_string(nsq::lookupd::current_parse_env().compiler));
  nsq::lookupd::Server server(std::move(*parsed), log);
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
  log->info("nsqlookupd: exited cleanly");
  return 0;
}
