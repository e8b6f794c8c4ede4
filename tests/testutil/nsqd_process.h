#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace nsq::testutil {

// Path of the nsqd binary under test: $NSQD_BINARY if set, else the path CMake
// compiled in (NSQ_TEST_NSQD_BINARY), else "". Empty or missing file = tests skip.
std::string nsqd_binary_path();
// Same for nsqlookupd: $NSQLOOKUPD_BINARY, else NSQ_TEST_NSQLOOKUPD_BINARY, else "".
std::string nsqlookupd_binary_path();
// Go NSQ v1.3.0's program `name` ("nsqd", "nsqlookupd") for differential
// tests: in $NSQ_REFERENCE_DIR if set, else in the folder CMake unpacked
// ../shared/reference's tarball into (NSQ_TEST_REFERENCE_DIR); "" when there
// is none (the tests then skip and say so).
std::string reference_binary_path(const std::string& name);

// One server child process (nsqd, nsqlookupd, ...). spawn() starts it with
// posix_spawn, its stdout and stderr going to one pipe drained by a reader
// thread (so a chatty server never blocks on a full pipe), and waits until
// the log shows the "TCP: listening on <host>:<port>" line (and the HTTP one
// if asked). The destructor SIGKILLs a still running child and reaps it.
//
// @par Thread Safety: log()/wait_for_log() may be called from any thread;
// the rest from the owning thread only.
class ServerProcess {
 public:
  struct SpawnOptions {
    std::string binary;
    std::vector<std::string> args;  // argv[1..]
    bool require_http = false;      // spawn() fails if HTTP never announces its port
    std::chrono::milliseconds start_timeout{10000};
  };

  ServerProcess() = default;
  virtual ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Empty string on success, else a description (with the captured log).
  std::string spawn(const SpawnOptions& options);

  int tcp_port() const { return tcp_port_; }
  int http_port() const { return http_port_; }  // 0 if HTTP did not announce itself
  // Waits for the HTTP listening line (if spawn() did not) and returns the port, 0 if none.
  int wait_http_port(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }

  // True while the child has not exited (reaps it if it has).
  bool alive();
  bool send_signal(int sig);
  // Raw waitpid status once the child exited within timeout, else nullopt.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  // SIGTERM then wait: true iff it exited normally with code 0 in time.
  bool stop(std::chrono::milliseconds timeout = std::chrono::milliseconds(20000));
  // SIGKILL and reap; true once it is gone.
  bool kill_now(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  std::string log() const;
  // Waits until the log contains needle (or the child's output ends).
  bool wait_for_log(const std::string& needle, std::chrono::milliseconds timeout);

  static std::string describe_status(int status);

 private:
  void reader_loop(int fd);

  pid_t pid_ = -1;
  std::optional<int> exit_status_;
  int tcp_port_ = 0;
  int http_port_ = 0;
  std::thread reader_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string log_;       // guarded by mu_
  bool log_eof_ = false;  // guarded by mu_
};

// nsqd on 127.0.0.1 ephemeral ports with its own data path.
class NsqdProcess : public ServerProcess {
 public:
  struct Options {
    std::string binary;  // empty: nsqd_binary_path()
    std::filesystem::path data_path;
    std::vector<std::string> extra_args;  // more nsqd flags, e.g. "--mem-queue-size=10"
    bool http = true;                     // --http-address=127.0.0.1:0 (else "")
    bool require_http = false;            // start() fails if HTTP never announces its port
    std::chrono::milliseconds start_timeout{10000};
    // Where the test reaches it (IPv4): 127.0.0.1, or its address in another
    // network namespace.
    std::string host = "127.0.0.1";
  };

  // Empty string on success, else a description (with the captured log).
  std::string start(const Options& options);
  const std::string& host() const { return host_; }

 private:
  std::string host_ = "127.0.0.1";
};

// nsqlookupd; by default on 127.0.0.1 ephemeral TCP and HTTP ports (waits for both).
class NsqlookupdProcess : public ServerProcess {
 public:
  struct Options {
    std::string binary;  // empty: nsqlookupd_binary_path()
    std::string tcp_address = "127.0.0.1:0";
    std::string http_address = "127.0.0.1:0";
    std::vector<std::string> extra_args;  // e.g. "--inactive-producer-timeout=1s"
    std::chrono::milliseconds start_timeout{10000};
  };

  // Empty string on success, else a description (with the captured log).
  std::string start(const Options& options);
};

}  // namespace nsq::testutil
