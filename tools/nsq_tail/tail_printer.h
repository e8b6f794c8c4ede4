#pragma once

#include <mutex>
#include <string>

#include "nsq/client/consumer.h"

namespace nsq::tools::tail {

// Writes one topic's messages to stdout: "[<topic> | ]<body>\n", each
// message in one write(2) so the lines of several topics never mix. With
// total_messages > 0 the process exits 0 right after the total_messages-th
// line of this topic, before that message is FIN'd (as Go's os.Exit in the
// handler).
//
// @par Thread Safety: handle() may be called from any thread; the write
// and the count are guarded by `stdout_mu`, shared by every printer.
class TailPrinter {
 public:
  // stdout_mu must outlive the printer.
  TailPrinter(std::string topic, bool print_topic, int total_messages, std::mutex* stdout_mu);

  client::HandlerResult handle(client::Message& message);

 private:
  const std::string prefix_;  // "<topic> | " or ""
  const int total_messages_;
  std::mutex* stdout_mu_;
  int shown_ = 0;  // guarded by *stdout_mu_
};

}  // namespace nsq::tools::tail
