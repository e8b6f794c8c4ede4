#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "nsq/client/config.h"
#include "nsq/client/message.h"

namespace spdlog {
class logger;
}

namespace nsq::client {

// What a handler says of a message: ok (FIN, unless the handler disabled
// auto response) or an error text (logged, REQ with the default delay and a
// backoff signal).
using HandlerResult = tl::expected<void, std::string>;
using MessageHandler = std::function<HandlerResult(Message&)>;

struct ConsumerStats {
  uint64_t messages_received = 0;
  uint64_t messages_finished = 0;
  uint64_t messages_requeued = 0;
  int connections = 0;
};

// A subscriber to one topic/channel across any number of nsqd (go-nsq's
// Consumer): direct addresses or discovery through nsqlookupd, max-in-flight
// spread over the connections with RDY redistribution, exponential backoff,
// auto FIN/REQ, max-attempts, heartbeats, graceful stop with CLS.
//
// Handlers run on `concurrency` threads of the consumer's own; everything
// else on one I/O thread (plus one thread polling lookupd, which does
// blocking HTTP).
//
// @par Thread Safety: every member may be called from any thread, except
// that set_handler/set_failed_message_hook come before the first connect.
class Consumer {
 public:
  // Topic and channel names are checked on the first connect. logger may be null.
  Consumer(std::string topic, std::string channel, Config config,
           std::shared_ptr<spdlog::logger> logger = nullptr);
  // stop(), wait(), then joins every thread.
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  void set_handler(MessageHandler handler, int concurrency = 1);
  // Called (on a handler thread, instead of the handler) for a message
  // delivered more than max_attempts times, before it is FIN'd.
  void set_failed_message_hook(std::function<void(const Message&)> hook);

  // Connects to one nsqd ("host:port"); reconnects every
  // lookupd_poll_interval while it is down. Error for a bad address, bad
  // topic/channel name, a missing handler, a duplicate, or after stop().
  tl::expected<void, std::string> connect_to_nsqd(const std::string& address);
  tl::expected<void, std::string> connect_to_nsqds(const std::vector<std::string>& addresses);
  // Adds an nsqlookupd HTTP address ("host:port" or an http:// URL) and
  // starts polling its /lookup.
  tl::expected<void, std::string> connect_to_lookupd(const std::string& address);
  tl::expected<void, std::string> connect_to_lookupds(const std::vector<std::string>& addresses);

  // Starts a graceful stop: CLS to every connection, the remaining
  // in-flight messages are handled and answered, connections close (at most
  // 30 s). Returns at once; wait() blocks until it is done.
  void stop();
  void wait();
  // wait() with a limit; true if stopped.
  bool wait_for(std::chrono::milliseconds timeout);

  void change_max_in_flight(int max_in_flight);
  // True when any connection has in-flight messages >= 85% of its last RDY:
  // nsqd will send no more until some are answered (nsq_to_file syncs then).
  bool is_starved() const;
  ConsumerStats stats() const;

  const std::string& topic() const;
  const std::string& channel() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace nsq::client
