#include "nsq/daemon.h"

#include <pthread.h>

#include <cstdio>
#include <utility>

namespace nsq {

int finish_parse(const config::ParseExit& exit) {
  std::FILE* out = exit.to_stderr ? stderr : stdout;
  std::fputs(exit.text.c_str(), out);
  if (!exit.text.empty() && exit.text.back() != '\n') std::fputc('\n', out);
  return exit.exit_code;
}

ShutdownSignal::ShutdownSignal() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

ShutdownSignal::~ShutdownSignal() { stop(); }

void ShutdownSignal::watch(std::function<void(int)> on_signal) {
  stop();
  stopping_ = false;
  watcher_ = std::thread([this, on_signal = std::move(on_signal)] {
    int sig = 0;
    sigwait(&signals_, &sig);
    if (!stopping_) on_signal(sig);
  });
}

void ShutdownSignal::stop() {
  if (!watcher_.joinable()) return;
  stopping_ = true;
  // The watcher is parked in sigwait unless a signal already woke it.
  pthread_kill(watcher_.native_handle(), SIGTERM);
  watcher_.join();
}

}  // namespace nsq
