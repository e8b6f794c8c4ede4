// nsq_to_nsq: flags -> NsqToNsqOptions -> one Consumer per topic feeding a
// Republisher over one Producer per destination, until SIGINT/SIGTERM.
#include <memory>
#include <string>
#include <vector>

#include "common/consumer_group.h"
#include "common/go_log.h"
#include "common/termination_signals.h"
#include "nsq/client/producer.h"
#include "nsq/go_logger.h"
#include "nsq_to_nsq_options.h"
#include "republisher.h"

int main(int argc, char** argv) {
  using namespace nsq::tools;
  using namespace nsq::tools::to_nsq_bridge;
  TerminationSignals signals;  // before any thread exists
  NsqToNsqOptions options = parse_nsq_to_nsq_options(argc, argv);
  auto logger = nsq::make_go_client_logger("nsq_to_nsq");
  ConsumerGroup consumers(options.channel, options.consumer_config, options.sources, logger);
  if (auto valid = options.producer_config.validate(); !valid) log_fatal(valid.error());

  std::vector<std::unique_ptr<nsq::client::Producer>> producers;
  std::vector<nsq::client::Producer*> producer_ptrs;
  for (const auto& address : options.destinations) {
    producers.push_back(
        std::make_unique<nsq::client::Producer>(address, options.producer_config, logger));
    producer_ptrs.push_back(producers.back().get());
  }
  Republisher republisher(options, producer_ptrs);

  // Go runs one handler goroutine per destination.
  const int concurrency = static_cast<int>(options.destinations.size());
  for (const auto& topic : options.topics) {
    std::string destination_topic =
        options.destination_topic.empty() ? topic : options.destination_topic;
    consumers.add(
        topic,
        [&republisher, destination_topic](nsq::client::Message& m) {
          return republisher.handle(m, destination_topic);
        },
        concurrency);
  }

  signals.wait();
  // Consumers first: their in-flight messages are answered by publish
  // callbacks, so the producers stay up until the consumers are done.
  consumers.stop();
  for (auto& producer : producers) producer->stop();
  return 0;
}
