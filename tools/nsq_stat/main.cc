// nsq_stat: polls /stats of the nsqd producing a topic and prints one line
// of aggregated channel figures per interval (Go nsq_stat v1.3.0).
#include <csignal>
#include <cstdio>
#include <thread>

#include "common/flag_exit.h"
#include "common/go_log.h"
#include "common/process_exit.h"
#include "common/termination_signals.h"
#include "http_fetch.h"
#include "options.h"
#include "stat_loop.h"

namespace {

std::chrono::milliseconds to_ms(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

}  // namespace

int main(int argc, char** argv) {
  // Go's nsq_stat ends with exit 0 on SIGINT, SIGTERM and SIGHUP.
  nsq::tools::TerminationSignals signals({SIGHUP});
  std::signal(SIGPIPE, SIG_IGN);

  nsq::stat::Options options;
  nsq::flags::FlagSet fs(argv[0]);
  nsq::stat::add_flags(fs, &options);
  nsq::tools::parse_flags_or_exit(fs, argc, argv);
  nsq::tools::exit_if_version(options.show_version, "nsq_stat");
  if (auto error = nsq::stat::validation_error(options)) nsq::tools::log_fatal(*error);

  signals.watch([](int) { nsq::tools::exit_now(0); });

  const nsq::stat::HttpTimeouts timeouts{to_ms(options.http_connect_timeout),
                                         to_ms(options.http_request_timeout)};
  nsq::stat::StatLoopIo io;
  io.fetch = [&](const std::string& address, const std::string& target) {
    return nsq::stat::fetch_v1(address, target, timeouts);
  };
  io.print = [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  };
  io.sleep = [](std::chrono::nanoseconds d) { std::this_thread::sleep_for(d); };
  if (auto done = nsq::stat::run_stat_loop(options, io); !done) {
    nsq::tools::log_fatal(done.error());
  }
  nsq::tools::exit_now(0);
}
