#include "nsq/daemon.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <utility>

#include "nsq/config/daemon_options.h"
#include "nsq/open_file_limit.h"

namespace nsq {

int finish_parse(const config::ParseExit& exit) {
  std::FILE* out = exit.to_stderr ? stderr : stdout;
  std::fputs(exit.text.c_str(), out);
  if (!exit.text.empty() && exit.text.back() != '\n') std::fputc('\n', out);
  return exit.exit_code;
}

DaemonProcess::DaemonProcess(std::string program, const std::string& log_prefix, GoLogLevel level)
    : program_(std::move(program)), log_(make_go_logger(program_, log_prefix, level)) {
  raise_open_file_limit();
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  log_->info("{}", config::version_string(program_, config::compiler_name()));
}

int DaemonProcess::serve(DaemonServer& server) {
  if (std::string error = server.start(); !error.empty()) {
    log_->critical("{}", error);
    return 1;
  }
  int sig = 0;
  sigwait(&signals_, &sig);
  log_->info("signal {} received, shutting down", sig);
  server.stop();
  log_->info("{}: exited cleanly", program_);
  return 0;
}

}  // namespace nsq
