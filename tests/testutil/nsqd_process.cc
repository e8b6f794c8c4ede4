#include "testutil/nsqd_process.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "testutil/spawn_child.h"

namespace nsq::testutil {

namespace {

// Port of the first "<what> listening on <host>:<port>" line, 0 if none yet.
int find_listening_port(const std::string& log, const std::string& what) {
  const std::string needle = what + ": listening on ";
  std::size_t pos = 0;
  while ((pos = log.find(needle, pos)) != std::string::npos) {
    // "HTTP: listening" must not match "TCP: listening" and the like.
    bool word_start = pos == 0 || !std::isalpha(static_cast<unsigned char>(log[pos - 1]));
    std::size_t start = pos + needle.size();
    std::size_t end = log.find_first_of(" \t\r\n", start);
    if (end == std::string::npos) return 0;  // line not complete yet
    if (word_start) {
      std::string addr = log.substr(start, end - start);
      auto colon = addr.rfind(':');
      if (colon != std::string::npos) return std::atoi(addr.c_str() + colon + 1);
    }
    pos = end;
  }
  return 0;
}

}  // namespace

std::string nsqlookupd_binary_path() {
  if (const char* env = std::getenv("NSQLOOKUPD_BINARY"); env != nullptr && *env != '\0')
    return env;
#ifdef NSQ_TEST_NSQLOOKUPD_BINARY
  return NSQ_TEST_NSQLOOKUPD_BINARY;
#else
  return {};
#endif
}

std::string nsqd_binary_path() {
  if (const char* env = std::getenv("NSQD_BINARY"); env != nullptr && *env != '\0') return env;
#ifdef NSQ_TEST_NSQD_BINARY
  return NSQ_TEST_NSQD_BINARY;
#else
  return {};
#endif
}

std::string reference_binary_path(const std::string& name) {
  std::string dir;
  if (const char* env = std::getenv("NSQ_REFERENCE_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
#ifdef NSQ_TEST_REFERENCE_DIR
    dir = NSQ_TEST_REFERENCE_DIR;
#endif
  }
  if (dir.empty()) return {};
  std::string path = dir + "/" + name;
  return ::access(path.c_str(), X_OK) == 0 ? path : std::string();
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && !exit_status_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_status_ = status;
  }
  if (reader_.joinable()) reader_.join();
}

std::string NsqdProcess::start(const Options& options) {
  SpawnOptions s;
  s.binary = options.binary.empty() ? nsqd_binary_path() : options.binary;
  if (s.binary.empty() || ::access(s.binary.c_str(), X_OK) != 0)
    return "no nsqd binary at '" + s.binary + "'";
  s.args = {"--tcp-address=127.0.0.1:0",
            std::string("--http-address=") + (options.http ? "127.0.0.1:0" : ""),
            "--data-path=" + options.data_path.string()};
  s.args.insert(s.args.end(), options.extra_args.begin(), options.extra_args.end());
  s.require_http = options.require_http;
  s.start_timeout = options.start_timeout;
  host_ = options.host;
  return spawn(s);
}

std::string NsqlookupdProcess::start(const Options& options) {
  SpawnOptions s;
  s.binary = options.binary.empty() ? nsqlookupd_binary_path() : options.binary;
  if (s.binary.empty() || ::access(s.binary.c_str(), X_OK) != 0)
    return "no nsqlookupd binary at '" + s.binary + "'";
  s.args = {"--tcp-address=" + options.tcp_address, "--http-address=" + options.http_address};
  s.args.insert(s.args.end(), options.extra_args.begin(), options.extra_args.end());
  s.require_http = true;
  s.start_timeout = options.start_timeout;
  return spawn(s);
}

std::string ServerProcess::spawn(const SpawnOptions& options) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::string("pipe2: ") + std::strerror(errno);
  // stdout and stderr into one pipe: the log, in the order it was written.
  std::string error =
      spawn_child(options.binary, options.args, ChildStdio{-1, fds[1], fds[1]}, pid_);
  ::close(fds[1]);
  if (!error.empty()) {
    ::close(fds[0]);
    return error;
  }
  reader_ = std::thread([this, fd = fds[0]] { reader_loop(fd); });

  auto deadline = std::chrono::steady_clock::now() + options.start_timeout;
  std::unique_lock lock(mu_);
  auto ready = [&] {
    tcp_port_ = find_listening_port(log_, "TCP");
    http_port_ = find_listening_port(log_, "HTTP");
    if (log_eof_) return true;
    if (tcp_port_ == 0) return false;
    return !options.require_http || http_port_ != 0;
  };
  cv_.wait_until(lock, deadline, ready);
  if (tcp_port_ != 0 && (!options.require_http || http_port_ != 0)) return {};
  const std::string name = std::filesystem::path(options.binary).filename().string();
  std::string why =
      log_eof_ ? name + " exited before listening" : name + " did not announce its ports in time";
  return why + "; log:\n" + log_;
}

void ServerProcess::reader_loop(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard lock(mu_);
    if (n <= 0) {
      log_eof_ = true;
      cv_.notify_all();
      break;
    }
    log_.append(buf, static_cast<std::size_t>(n));
    cv_.notify_all();
  }
  ::close(fd);
}

int ServerProcess::wait_http_port(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] {
    http_port_ = find_listening_port(log_, "HTTP");
    return http_port_ != 0 || log_eof_;
  });
  return http_port_;
}

bool ServerProcess::alive() {
  if (pid_ <= 0 || exit_status_) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    exit_status_ = status;
    return false;
  }
  return true;
}

bool ServerProcess::send_signal(int sig) {
  if (!alive()) return false;
  return ::kill(pid_, sig) == 0;
}

std::optional<int> ServerProcess::wait_exit(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return std::nullopt;
  if (exit_status_) return exit_status_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  {
    // The pipe reaches EOF when the child exits (it does not hand its stderr
    // to anyone else): wait for that event first.
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return log_eof_; });
  }
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_status_ = status;
      return exit_status_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    // Output closed but not yet reaped: the exit is imminent.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool ServerProcess::stop(std::chrono::milliseconds timeout) {
  if (!send_signal(SIGTERM)) return false;
  auto st = wait_exit(timeout);
  return st && WIFEXITED(*st) && WEXITSTATUS(*st) == 0;
}

bool ServerProcess::kill_now(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return false;
  if (exit_status_) return true;
  ::kill(pid_, SIGKILL);
  return wait_exit(timeout).has_value();
}

std::string ServerProcess::log() const {
  std::lock_guard lock(mu_);
  return log_;
}

bool ServerProcess::wait_for_log(const std::string& needle, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] {
    return log_.find(needle) != std::string::npos || log_eof_;
  }) && log_.find(needle) != std::string::npos;
}

std::string ServerProcess::describe_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace nsq::testutil
