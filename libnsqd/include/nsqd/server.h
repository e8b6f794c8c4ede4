#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nsqd/options.h"

namespace spdlog {
class logger;
}

namespace nsq::nsqd {

// A whole nsqd: the broker, its TCP listener and I/O threads. main() builds
// one from Options, start()s it, and run()s it until a signal calls stop().
class Server {
 public:
  Server(Options options, std::shared_ptr<spdlog::logger> log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Locks the data directory, loads nsqd.dat and binds the listeners (logs
  // "TCP: listening on <addr>"). Returns a message on failure.
  std::string start();

  // Serves until stop(); then shuts down cleanly: no new connections, clients
  // closed, every queue flushed to disk, nsqd.dat written.
  void run();

  // Thread-safe and callable from a signal-handling thread.
  void stop();

  std::uint16_t tcp_port() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsq::nsqd
