// nsqadmin: flags -> Options -> AdminServer, until SIGINT/SIGTERM (Go nsqadmin v1.3.0).
#include <spdlog/spdlog.h>

#include <csignal>

#include "admin_server.h"
#include "common/flag_exit.h"
#include "common/termination_signals.h"
#include "nsq/go_logger.h"
#include "options.h"

int main(int argc, char** argv) {
  nsq::tools::TerminationSignals signals;  // before any thread
  std::signal(SIGPIPE, SIG_IGN);

  nsq::admin::Options parsed;
  nsq::flags::FlagSet fs(argv[0]);
  nsq::admin::add_flags(fs, &parsed);
  nsq::tools::parse_flags_or_exit(fs, argc, argv);
  auto resolved = nsq::admin::resolve_config(fs, parsed);
  if (!resolved) {
    auto log = nsq::make_go_logger("nsqadmin", parsed.log_prefix, parsed.log_level);
    log->critical("{}", resolved.error());
    return 1;
  }
  nsq::admin::Options options = std::move(*resolved);
  nsq::tools::exit_if_version(options.show_version, "nsqadmin");

  auto log = nsq::make_go_logger("nsqadmin", options.log_prefix, options.log_level);
  if (auto error = nsq::admin::validation_error(options)) {
    log->critical("failed to instantiate nsqadmin - {}", *error);
    return 1;
  }
  log->info("nsqadmin v1.3.0 (built w/C++20)");

  nsq::admin::AdminServer server(std::move(options), log);
  if (std::string error = server.start(); !error.empty()) {
    log->critical("failed to instantiate nsqadmin - {}", error);
    return 1;
  }
  signals.wait();
  server.stop();
  return 0;
}
