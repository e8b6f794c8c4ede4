#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "socket.h"

namespace nsq::bench {

// The fastest server the pub-latency client can meet on this machine: it
// accepts one connection on loopback and answers each PUB (or MPUB/DPUB)
// with OK the moment the command is complete, doing nothing else and spinning
// on its socket instead of sleeping. Its round trip is the floor under any
// broker's single-PUB latency here (pub-latency-limit mode).
class OkResponder {
 public:
  OkResponder() = default;
  OkResponder(const OkResponder&) = delete;
  OkResponder& operator=(const OkResponder&) = delete;
  ~OkResponder();

  // Listens and starts answering; the address to connect to, "127.0.0.1:port".
  Expected<std::string> start();
  // The first error the responder thread met, if any (after the client closed).
  std::string stop();

 private:
  void serve(Listener listener);

  std::string address_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> accepted_{false};
  std::string error_;
};

}  // namespace nsq::bench
