#pragma once

#include <string>
#include <utility>

#include "diskqueue/disk_queue.h"

namespace nsq::diskqueue {

// The queue's log lines, each prefixed "DISKQUEUE(<name>): " as go-diskqueue
// prefixes them. Never called with a queue lock held (Options::logger may
// take locks of its own).
class QueueLog {
 public:
  QueueLog(Logger logger, std::string name)
      : logger_(std::move(logger)), prefix_("DISKQUEUE(" + name + "): ") {}

  void operator()(LogLevel level, const std::string& text) const {
    if (logger_) logger_(level, prefix_ + text);
  }

 private:
  Logger logger_;
  std::string prefix_;
};

}  // namespace nsq::diskqueue
