// nsqlookupd: flags and config file -> Options -> Server, until SIGINT/SIGTERM.
#include <pthread.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "nsq/go_logger.h"
#include "nsq/open_file_limit.h"
#include "lookupd/options_parser.h"
#include "lookupd/server.h"

namespace {

std::shared_ptr<spdlog::logger> make_logger(const nsq::lookupd::Options& options) {
  // Both enums list Go's levels in the same order.
  return nsq::make_go_logger("nsqlookupd", options.log_prefix,
                             static_cast<nsq::GoLogLevel>(static_cast<int>(options.log_level)));
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = nsq::lookupd::parse_lookupd_options(argc, argv);
  if (!parsed) {
    const auto& exit = parsed.error();
    std::fputs(exit.text.c_str(), exit.to_stderr ? stderr : stdout);
    if (!exit.text.empty() && exit.text.back() != '\n') {
      std::fputc('\n', exit.to_stderr ? stderr : stdout);
    }
    return exit.exit_code;
  }
  auto log = make_logger(*parsed);
  nsq::raise_open_file_limit();

  // Signals are taken by one thread with sigwait, so every other thread
  // (started after this) runs with them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  log->info("{}", nsq::lookupd::version_string(nsq::lookupd::current_parse_env().compiler));
  nsq::lookupd::Server server(std::move(*parsed), log);
  if (std::string error = server.start(); !error.empty()) {
    log->critical("{}", error);
    return 1;
  }
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    log->info("signal {} received, shutting down", sig);
    server.stop();
  });
  server.run();
  // The signal thread is parked in sigwait unless a signal stopped us.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  log->info("nsqlookupd: exited cleanly");
  return 0;
}
