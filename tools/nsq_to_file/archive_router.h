#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "file_sink.h"
#include "nsq/client/message.h"

namespace spdlog {
class logger;
}

namespace nsq::to_file {

// Go's FileLogger.router for one topic: takes the consumer's messages,
// writes them through the FileSink and FINs them only after a sync made
// them durable. A sync happens every sync_interval, when max_in_flight
// messages wait for one, when the consumer is starved, on SIGHUP (which
// also closes the file) and at the end.
//
// Stop sequence: terminate() → the consumer is asked to stop (CLS); the
// messages it still delivers are written and synced as they come (so its
// wait for in-flight answers ends quickly); consumer_stopped() → last sync,
// close (and move), run() returns.
//
// @par Thread Safety: push/hangup/terminate/consumer_stopped from any
// thread; run() on one thread (the router's).
class ArchiveRouter {
 public:
  struct Settings {
    int max_in_flight = 200;
    std::chrono::nanoseconds sync_interval = std::chrono::seconds(30);
    bool skip_empty_files = false;
  };
  // What the router needs of its consumer.
  struct ConsumerControl {
    std::function<bool()> is_starved;
    std::function<void()> stop;  // starts a graceful stop, returns at once
  };

  ArchiveRouter(FileSink sink, Settings settings, ConsumerControl consumer,
                std::shared_ptr<spdlog::logger> log, std::string context);

  // A message the handler took over (auto response disabled).
  void push(client::Message message);
  void hangup();
  void terminate();
  void consumer_stopped();

  // Routes until consumer_stopped(); the error is fatal for the tool (a
  // failed write, sync or open: Go logs FATAL and exits 1).
  tl::expected<void, std::string> run();

 private:
  struct Events {
    std::deque<client::Message> messages;
    bool hangup = false;
    bool terminate = false;
    bool stopped = false;
  };

  // Waits until something is queued or the deadline passes; takes it all.
  Events take_events(std::chrono::steady_clock::time_point deadline);
  tl::expected<void, std::string> sync_and_finish();

  FileSink sink_;
  const Settings settings_;
  ConsumerControl consumer_;
  std::shared_ptr<spdlog::logger> log_;
  const std::string context_;

  std::vector<client::Message> unsynced_;  // written, awaiting sync + FIN (router thread)

  std::mutex mu_;
  std::condition_variable cv_;
  Events events_;  // guarded by mu_
};

}  // namespace nsq::to_file
