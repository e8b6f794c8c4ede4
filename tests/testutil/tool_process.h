#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace nsq::testutil {

// Path of a client tool under test ("nsq_tail", "to_nsq", ...):
// $NSQ_TOOLS_DIR/<tool>/<tool> if that variable is set, else the build tree
// path CMake compiled in (NSQ_TEST_TOOLS_DIR). Empty when not found.
std::string tool_binary_path(std::string_view tool);

// A command-line tool run as a user would run it: its own stdin pipe
// (optional), stdout and stderr captured separately by reader threads, so
// tests can wait for output events instead of sleeping. The destructor
// SIGKILLs a still running child and reaps it.
//
// @par Thread Safety: stdout/stderr accessors and waits may be called from
// any thread; spawn/write/close/signal/wait_exit from the owning thread.
class ToolProcess {
 public:
  ToolProcess() = default;
  ~ToolProcess();
  ToolProcess(const ToolProcess&) = delete;
  ToolProcess& operator=(const ToolProcess&) = delete;

  // Empty string on success, else why it failed. Without `pipe_stdin` the
  // child's stdin is /dev/null.
  std::string spawn(const std::string& binary, const std::vector<std::string>& args,
                    bool pipe_stdin = false);

  // Writes all of data to the child's stdin (blocking); false on error.
  bool write_stdin(std::string_view data);
  void close_stdin();

  std::string stdout_text() const;
  std::string stderr_text() const;
  // Waits until the captured stdout satisfies `done` or stdout is closed.
  // Returns done(stdout) at the end.
  bool wait_stdout(const std::function<bool(const std::string&)>& done,
                   std::chrono::milliseconds timeout);
  // Waits until stdout holds at least n '\n'-terminated lines.
  bool wait_stdout_lines(std::size_t n, std::chrono::milliseconds timeout);
  // Waits until stderr contains needle (or stderr is closed).
  bool wait_stderr(const std::string& needle, std::chrono::milliseconds timeout);

  bool send_signal(int sig);
  // Raw waitpid status once exited within timeout (after its output is
  // drained), else nullopt.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // Exit code if it exited normally within timeout; -signal if killed by a
  // signal; nullopt on timeout.
  std::optional<int> wait_exit_code(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }

 private:
  void reader_loop(int fd, std::string* out, bool* eof);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::optional<int> exit_status_;
  std::thread out_reader_;
  std::thread err_reader_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string out_;       // guarded by mu_
  std::string err_;       // guarded by mu_
  bool out_eof_ = false;  // guarded by mu_
  bool err_eof_ = false;  // guarded by mu_
};

struct ToolResult {
  int exit_code = -1000;  // as ToolProcess::wait_exit_code; -1000 = timed out (then killed)
  std::string out;
  std::string err;
};

// Runs a tool to completion: stdin fed from `input` (then closed), waits at
// most `timeout`.
ToolResult run_tool(const std::string& binary, const std::vector<std::string>& args,
                    std::string_view input = {},
                    std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace nsq::testutil
