#include "common/termination_signals.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace nsq::tools {
namespace {

// Reads one signal from a signalfd; nullopt if none is pending.
std::optional<int> read_signal(int fd) {
  signalfd_siginfo info{};
  for (;;) {
    ssize_t n = ::read(fd, &info, sizeof info);
    if (n == static_cast<ssize_t>(sizeof info)) return static_cast<int>(info.ssi_signo);
    if (n < 0 && errno == EINTR) continue;
    return std::nullopt;
  }
}

}  // namespace

TerminationSignals::TerminationSignals(std::initializer_list<int> extra) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  for (int sig : extra) sigaddset(&set_, sig);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  signal_fd_ = ::signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
  stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

TerminationSignals::~TerminationSignals() {
  if (watcher_.joinable()) {
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(stop_fd_, &one, sizeof one);
    watcher_.join();
  }
  if (signal_fd_ >= 0) ::close(signal_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

int TerminationSignals::wait() {
  for (;;) {
    if (auto sig = next()) return *sig;
    pollfd p{signal_fd_, POLLIN, 0};
    ::poll(&p, 1, -1);
  }
}

std::optional<int> TerminationSignals::next() { return read_signal(signal_fd_); }

void TerminationSignals::watch(std::function<void(int)> on_signal) {
  watcher_ = std::thread([this, on_signal = std::move(on_signal)] {
    for (;;) {
      pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) return;
      while (auto sig = next()) on_signal(*sig);
    }
  });
}

}  // namespace nsq::tools
