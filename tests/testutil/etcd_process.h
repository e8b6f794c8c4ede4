#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>

namespace nsq::testutil {

// Path of etcd: $ETCD_BINARY, else `etcd` on the PATH (Debian's etcd-server
// package, installed by scripts/install-deps.sh); "" when there is none.
std::string etcd_binary_path();

// A real single-member etcd on two free loopback ports with its own data
// directory, for cluster-mode tests. start() returns once etcd answers on
// its client URL; the destructor SIGKILLs it.
class EtcdProcess {
 public:
  EtcdProcess() = default;
  ~EtcdProcess();
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // Empty string on success, else why (with etcd's log). A restart keeps
  // the data directory and the ports.
  std::string start(const std::filesystem::path& data_dir,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20));
  void kill_now();
  bool alive() const { return pid_ > 0; }

  // Before start(): also listen on `host` (an address of this machine) and
  // give that to clients, for nodes in another network namespace.
  void set_advertised_host(std::string host) { host_ = std::move(host); }

  int client_port() const { return client_port_; }
  std::string endpoint() const { return "http://" + host_ + ":" + std::to_string(client_port_); }
  std::string log() const;

 private:
  std::string start_once(const std::filesystem::path& data_dir, std::chrono::milliseconds timeout);

  pid_t pid_ = -1;
  int client_port_ = 0;
  int peer_port_ = 0;
  std::string host_ = "127.0.0.1";
  std::filesystem::path dir_;
};

}  // namespace nsq::testutil
