#include "testutil/tool_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "testutil/spawn_child.h"

namespace nsq::testutil {

std::string tool_binary_path(std::string_view tool) {
  std::string dir;
  if (const char* env = std::getenv("NSQ_TOOLS_DIR"); env != nullptr && *env != '\0') {
    dir = env;
  } else {
#ifdef NSQ_TEST_TOOLS_DIR
    dir = NSQ_TEST_TOOLS_DIR;
#endif
  }
  if (dir.empty()) return {};
  std::string path = dir + "/" + std::string(tool) + "/" + std::string(tool);
  return ::access(path.c_str(), X_OK) == 0 ? path : std::string();
}

ToolProcess::~ToolProcess() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  if (pid_ > 0 && !exit_status_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (out_reader_.joinable()) out_reader_.join();
  if (err_reader_.joinable()) err_reader_.join();
}

std::string ToolProcess::spawn(const std::string& binary, const std::vector<std::string>& args,
                               bool pipe_stdin) {
  int out[2], err[2], in[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    return std::string("pipe2: ") + std::strerror(errno);
  if (pipe_stdin && ::pipe2(in, O_CLOEXEC) != 0)
    return std::string("pipe2: ") + std::strerror(errno);
  std::string error = spawn_child(binary, args, ChildStdio{in[0], out[1], err[1]}, pid_);
  ::close(out[1]);
  ::close(err[1]);
  if (pipe_stdin) ::close(in[0]);
  if (!error.empty()) {
    ::close(out[0]);
    ::close(err[0]);
    if (pipe_stdin) ::close(in[1]);
    return error;
  }
  stdin_fd_ = pipe_stdin ? in[1] : -1;
  out_reader_ = std::thread([this, fd = out[0]] { reader_loop(fd, &out_, &out_eof_); });
  err_reader_ = std::thread([this, fd = err[0]] { reader_loop(fd, &err_, &err_eof_); });
  return {};
}

void ToolProcess::reader_loop(int fd, std::string* out, bool* eof) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard lock(mu_);
    if (n <= 0) {
      *eof = true;
      cv_.notify_all();
      break;
    }
    out->append(buf, static_cast<std::size_t>(n));
    cv_.notify_all();
  }
  ::close(fd);
}

bool ToolProcess::write_stdin(std::string_view data) {
  if (stdin_fd_ < 0) return false;
  // A tool that exits early must fail the write, not kill the test.
  ::signal(SIGPIPE, SIG_IGN);
  while (!data.empty()) {
    ssize_t n = ::write(stdin_fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void ToolProcess::close_stdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

std::string ToolProcess::stdout_text() const {
  std::lock_guard lock(mu_);
  return out_;
}

std::string ToolProcess::stderr_text() const {
  std::lock_guard lock(mu_);
  return err_;
}

bool ToolProcess::wait_stdout(const std::function<bool(const std::string&)>& done,
                              std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return done(out_) || out_eof_; });
  return done(out_);
}

bool ToolProcess::wait_stdout_lines(std::size_t n, std::chrono::milliseconds timeout) {
  return wait_stdout(
      [n](const std::string& s) {
        return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')) >= n;
      },
      timeout);
}

bool ToolProcess::wait_stderr(const std::string& needle, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return err_.find(needle) != std::string::npos || err_eof_; });
  return err_.find(needle) != std::string::npos;
}

bool ToolProcess::send_signal(int sig) {
  if (pid_ <= 0 || exit_status_) return false;
  return ::kill(pid_, sig) == 0;
}

std::optional<int> ToolProcess::wait_exit(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return std::nullopt;
  if (exit_status_) return exit_status_;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  {
    // Both pipes reach EOF when the child exits: wait for that event.
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return out_eof_ && err_eof_; });
  }
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_status_ = status;
      return exit_status_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    // Output closed but not yet reaped (or a grandchild holds the pipes).
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::optional<int> ToolProcess::wait_exit_code(std::chrono::milliseconds timeout) {
  auto status = wait_exit(timeout);
  if (!status) return std::nullopt;
  if (WIFEXITED(*status)) return WEXITSTATUS(*status);
  if (WIFSIGNALED(*status)) return -WTERMSIG(*status);
  return std::nullopt;
}

ToolResult run_tool(const std::string& binary, const std::vector<std::string>& args,
                    std::string_view input, std::chrono::milliseconds timeout) {
  ToolResult result;
  ToolProcess process;
  if (std::string error = process.spawn(binary, args, true); !error.empty()) {
    result.err = error;
    return result;
  }
  process.write_stdin(input);
  process.close_stdin();
  if (auto code = process.wait_exit_code(timeout)) {
    result.exit_code = *code;
  } else {
    process.send_signal(SIGKILL);
    process.wait_exit(std::chrono::seconds(5));
  }
  result.out = process.stdout_text();
  result.err = process.stderr_text();
  return result;
}

}  // namespace nsq::testutil
