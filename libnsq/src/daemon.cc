#include "nsq/daemon.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <mutex>
#include <optional>
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

DaemonServer::SignalAction DaemonServer::on_signal(int) { return SignalAction::stop; }

int DaemonProcess::serve(DaemonServer& server) {
  // A stop request wakes this thread's sigwait with a SIGTERM sent to it
  // alone; the flag tells it from one sent by someone else.
  struct StopRequest {
    std::mutex mu;
    std::optional<std::string> reason;
  };
  auto request = std::make_shared<StopRequest>();
  const pthread_t waiter = pthread_self();
  server.set_stop_request([request, waiter](std::string reason) {
    {
      std::lock_guard lock(request->mu);
      if (request->reason) return;
      request->reason = std::move(reason);
    }
    pthread_kill(waiter, SIGTERM);
  });
  if (std::string error = server.start(); !error.empty()) {
    log_->critical("{}", error);
    return 1;
  }
  for (;;) {
    int sig = 0;
    sigwait(&signals_, &sig);
    {
      std::lock_guard lock(request->mu);
      if (request->reason) {
        log_->info("{}, shutting down", *request->reason);
        break;
      }
    }
    if (server.on_signal(sig) == DaemonServer::SignalAction::stop) {
      log_->info("signal {} received, shutting down", sig);
      break;
    }
  }
  server.stop();
  log_->info("{}: exited cleanly", program_);
  return 0;
}

}  // namespace nsq
