// nsq_tail: flags -> TailOptions -> one Consumer per topic printing bodies,
// until SIGINT/SIGTERM (or -n messages).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/consumer_group.h"
#include "common/go_log.h"
#include "common/termination_signals.h"
#include "nsq/go_logger.h"
#include "tail_options.h"
#include "tail_printer.h"

int main(int argc, char** argv) {
  using namespace nsq::tools;
  TerminationSignals signals;  // before any thread exists
  tail::TailOptions options = tail::parse_tail_options(argc, argv);
  std::mutex stdout_mu;
  std::vector<std::unique_ptr<tail::TailPrinter>> printers;  // outlive the consumers
  ConsumerGroup consumers(options.channel, options.config, options.sources,
                          nsq::make_go_client_logger("nsq_tail"));
  for (const std::string& topic : options.topics) {
    log_line("Adding consumer for topic: " + topic);
    auto& printer = printers.emplace_back(std::make_unique<tail::TailPrinter>(
        topic, options.print_topic, options.total_messages, &stdout_mu));
    consumers.add(topic, [p = printer.get()](nsq::client::Message& m) { return p->handle(m); });
  }

  signals.wait();
  consumers.stop();
  return 0;
}
