#pragma once

#include <memory>
#include <string>
#include <thread>
#include <tl/expected.hpp>

#include "archive_router.h"
#include "nsq/client/consumer.h"
#include "options.h"

namespace spdlog {
class logger;
}

namespace nsq::to_file {

// One topic archived to files (Go's FileLogger with its consumer): a
// Consumer whose handler hands each message to an ArchiveRouter running on
// a thread of its own, plus a thread telling the router when the consumer
// has stopped.
//
// @par Thread Safety: hangup/terminate from any thread; join from one.
class TopicArchiver {
 public:
  // Builds the file name template, subscribes (topic, options.channel) and
  // starts routing. The error is Go's NewFileLogger error text. A fatal
  // error later (disk) is logged and ends the process with exit code 1,
  // as in Go.
  static tl::expected<std::unique_ptr<TopicArchiver>, std::string> start(
      const std::string& topic, const Options& options, std::shared_ptr<spdlog::logger> log,
      std::shared_ptr<spdlog::logger> client_log);

  // Only start() builds one (Key is private).
  struct Key {
   private:
    Key() = default;
    friend class TopicArchiver;
  };
  explicit TopicArchiver(Key) {}
  // terminate(), then join().
  ~TopicArchiver();
  TopicArchiver(const TopicArchiver&) = delete;
  TopicArchiver& operator=(const TopicArchiver&) = delete;

  // SIGHUP: sync and close the current file.
  void hangup();
  // SIGINT/SIGTERM: stop the consumer, sync, close, end the router.
  void terminate();
  // Waits until the router ended (after terminate()).
  void join();

 private:
  std::unique_ptr<ArchiveRouter> router_;
  std::unique_ptr<client::Consumer> consumer_;
  std::thread router_thread_;
  std::thread stop_watcher_;  // consumer_->wait(), then router_->consumer_stopped()
};

}  // namespace nsq::to_file
