#pragma once

// A network namespace for cluster tests that cut a node off (needs root and
// iproute2).

#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace nsq::integration {

// A network namespace joined to this one by a veth pair: `host_ip` on this
// side, `inside_ip` in it. cut() takes the link down (a partition), heal()
// brings it back. Needs root (CAP_NET_ADMIN) and iproute2.
class NetNamespace {
 public:
  NetNamespace() {
    const int id = static_cast<int>(::getpid() % 50000);
    name_ = "nsqtest" + std::to_string(id);
    veth_ = "nsqv" + std::to_string(id);
    const std::string subnet =
        "10." + std::to_string(100 + id % 100) + "." + std::to_string(id / 100 % 250) + ".";
    host_ip_ = subnet + "1";
    inside_ip_ = subnet + "2";
    ok_ = run("ip netns add " + name_) &&
          run("ip link add " + veth_ + " type veth peer name " + veth_ + "i") &&
          run("ip link set " + veth_ + "i netns " + name_) &&
          run("ip addr add " + host_ip_ + "/24 dev " + veth_) &&
          run("ip link set " + veth_ + " up") &&
          run(in("ip addr add " + inside_ip_ + "/24 dev " + veth_ + "i")) &&
          run(in("ip link set " + veth_ + "i up")) && run(in("ip link set lo up"));
  }
  ~NetNamespace() {
    run("ip link del " + veth_ + " 2>/dev/null");
    run("ip netns del " + name_ + " 2>/dev/null");
  }

  bool ok() const { return ok_; }
  const std::string& host_ip() const { return host_ip_; }
  const std::string& inside_ip() const { return inside_ip_; }
  bool cut() { return run("ip link set " + veth_ + " down"); }
  bool heal() { return run("ip link set " + veth_ + " up"); }

  // Moves the calling thread into the namespace (its sockets are made there).
  void enter() const {
    const int fd = ::open(("/var/run/netns/" + name_).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      (void)::setns(fd, CLONE_NEWNET);
      ::close(fd);
    }
  }
  // Runs `fn` on a thread inside the namespace and returns what it returns.
  template <class Fn>
  auto inside(Fn fn) const {
    decltype(fn()) out{};
    std::thread t([&] {
      enter();
      out = fn();
    });
    t.join();
    return out;
  }
  // A script that runs `binary` with its arguments inside the namespace, as
  // the same process (nsenter execs it; `ip netns exec` would fork, and a
  // SIGKILL would leave nsqd running).
  std::string wrapper(const std::filesystem::path& dir, const std::string& binary) const {
    const auto path = dir / ("in-" + name_ + ".sh");
    std::ofstream(path) << "#!/bin/sh\nexec nsenter --net=/var/run/netns/" << name_ << " " << binary
                        << " \"$@\"\n";
    ::chmod(path.c_str(), 0755);
    return path.string();
  }

 private:
  static bool run(const std::string& command) { return std::system(command.c_str()) == 0; }
  std::string in(const std::string& command) const {
    return "ip netns exec " + name_ + " " + command;
  }

  std::string name_, veth_, host_ip_, inside_ip_;
  bool ok_ = false;
};

}  // namespace nsq::integration
