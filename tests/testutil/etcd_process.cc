#include "testutil/etcd_process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "testutil/http_client.h"
#include "testutil/spawn_child.h"

namespace nsq::testutil {
namespace {

// A loopback port nothing listens on now (bound, read, closed: etcd needs a
// number up front).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace

std::string etcd_binary_path() {
  if (const char* env = std::getenv("ETCD_BINARY"); env && *env) return env;
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
    const std::string path = std::string(dir) + "/etcd";
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

EtcdProcess::~EtcdProcess() { kill_now(); }

std::string EtcdProcess::start(const std::filesystem::path& data_dir,
                               std::chrono::milliseconds timeout) {
  const bool own_ports = client_port_ == 0;
  // A port found free may be taken by a test running beside this one before
  // etcd binds it: fresh ports then, a few times.
  for (int attempt = 0;; ++attempt) {
    if (own_ports) {
      client_port_ = free_port();
      peer_port_ = free_port();
    }
    std::string err = start_once(data_dir, timeout);
    if (err.empty() || !own_ports || attempt == 4 ||
        err.find("address already in use") == std::string::npos) {
      return err;
    }
    std::filesystem::remove(dir_ / "etcd.log");
  }
}

std::string EtcdProcess::start_once(const std::filesystem::path& data_dir,
                                    std::chrono::milliseconds timeout) {
  const std::string binary = etcd_binary_path();
  if (binary.empty()) return "no etcd binary (install etcd-server)";
  dir_ = data_dir;
  std::filesystem::create_directories(dir_);
  const std::string client = "http://127.0.0.1:" + std::to_string(client_port_);
  const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);
  const std::string listen = host_ == "127.0.0.1" ? client : client + "," + endpoint();
  const std::vector<std::string> args = {
      "--name=test",
      "--data-dir=" + (dir_ / "data").string(),
      "--listen-client-urls=" + listen,
      "--advertise-client-urls=" + endpoint(),
      "--listen-peer-urls=" + peer,
      "--initial-advertise-peer-urls=" + peer,
      "--initial-cluster=test=" + peer,
      "--log-level=warn",
  };
  const int log_fd =
      ::open((dir_ / "etcd.log").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ChildStdio stdio;
  stdio.out = log_fd;
  stdio.err = log_fd;
  std::string err = spawn_child(binary, args, stdio, pid_);
  ::close(log_fd);
  if (!err.empty()) return err;
  // Ready once it answers a read (a bounded wait for an event: there is no
  // line on stdout to wait for instead).
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return "etcd exited at start: " + log();
    }
    HttpClient http(client_port_, std::chrono::milliseconds(500));
    auto reply = http.request("POST", "/v3/kv/range", "{\"key\":\"AA==\"}");
    if (reply && reply->status == 200) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "etcd did not answer in time: " + log();
}

void EtcdProcess::kill_now() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string EtcdProcess::log() const {
  std::ifstream in(dir_ / "etcd.log");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace nsq::testutil
