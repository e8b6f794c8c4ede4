#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "nsq/client/config.h"

namespace spdlog {
class logger;
}

namespace nsq::client {

// The outcome of one command: ok, or the error text (the E_* frame's text
// such as "E_BAD_TOPIC PUB topic name \"a b\" is not valid", or the
// connection error that failed it).
using PublishResult = tl::expected<void, std::string>;
using PublishCallback = std::function<void(PublishResult)>;

// A publisher to one nsqd (go-nsq's Producer). Connects on the first
// command and again after a connection loss; commands are pipelined and
// their replies matched in order; a lost connection fails every pending
// command. Answers heartbeats.
//
// Callbacks run on the producer's I/O thread: they must not block, and must
// not call the blocking publish()/ping()/stop() of the same producer.
//
// @par Thread Safety: every member may be called from any thread.
class Producer {
 public:
  // address: "host:port" of the nsqd TCP listener. logger may be null.
  Producer(std::string address, Config config, std::shared_ptr<spdlog::logger> logger = nullptr);
  // stop(), then joins the I/O thread.
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  void publish_async(std::string topic, std::string body, PublishCallback done);
  void multi_publish_async(std::string topic, std::vector<std::string> bodies,
                           PublishCallback done);
  void deferred_publish_async(std::string topic, std::chrono::milliseconds delay, std::string body,
                              PublishCallback done);

  // Blocking forms: return once nsqd answered.
  PublishResult publish(std::string topic, std::string body);
  PublishResult multi_publish(std::string topic, std::vector<std::string> bodies);
  PublishResult deferred_publish(std::string topic, std::chrono::milliseconds delay,
                                 std::string body);
  // Connects if needed and sends a NOP round trip (go-nsq's Ping).
  PublishResult ping();

  // Waits for the replies to every command already given (or their
  // failure), then closes. Later commands fail with "producer stopped".
  void stop();

  const std::string& address() const;

 private:
  class Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace nsq::client
