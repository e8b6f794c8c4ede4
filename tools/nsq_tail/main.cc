// nsq_tail: flags -> TailOptions -> one Consumer per topic printing bodies,
// until SIGINT/SIGTERM (or -n messages).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/client_logger.h"
#include "common/go_log.h"
#include "common/source_flags.h"
#include "common/termination_signals.h"
#include "nsq/client/consumer.h"
#include "tail_options.h"
#include "tail_printer.h"

int main(int argc, char** argv) {
  using namespace nsq::tools;
  TerminationSignals signals;  // before any thread exists
  tail::TailOptions options = tail::parse_tail_options(argc, argv);
  if (auto valid = options.config.validate(); !valid) log_fatal(valid.error());

  auto logger = make_client_logger("nsq_tail");
  std::mutex stdout_mu;
  std::vector<std::unique_ptr<tail::TailPrinter>> printers;
  std::vector<std::unique_ptr<nsq::client::Consumer>> consumers;
  for (const std::string& topic : options.topics) {
    log_line("Adding consumer for topic: " + topic);
    auto& printer = printers.emplace_back(std::make_unique<tail::TailPrinter>(
        topic, options.print_topic, options.total_messages, &stdout_mu));
    auto& consumer = consumers.emplace_back(
        std::make_unique<nsq::client::Consumer>(topic, options.channel, options.config, logger));
    consumer->set_handler([p = printer.get()](nsq::client::Message& m) { return p->handle(m); });
    if (auto connected = connect_consumer(*consumer, options.sources); !connected) {
      log_fatal(connected.error());
    }
  }

  signals.wait();
  for (auto& consumer : consumers) consumer->stop();
  for (auto& consumer : consumers) consumer->wait();
  return 0;
}
