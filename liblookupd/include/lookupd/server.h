#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "lookupd/options.h"

namespace spdlog {
class logger;
}

namespace nsq::lookupd {

// A whole nsqlookupd: the registration DB, the TCP (V1) listener and the HTTP
// API. main() builds one from Options, start()s it and run()s it until a
// signal calls stop().
class Server {
 public:
  Server(Options options, std::shared_ptr<spdlog::logger> log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds both listeners (logs "TCP: listening on <addr>" and "HTTP: listening
  // on <addr>") and starts serving. Returns a message on failure.
  std::string start();

  // Blocks until stop(); then closes the listeners and every connection.
  void run();

  // Thread-safe and callable from a signal-handling thread.
  void stop();

  std::uint16_t tcp_port() const;
  std::uint16_t http_port() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsq::lookupd
