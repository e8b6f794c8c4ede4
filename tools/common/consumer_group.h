#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/source_flags.h"
#include "nsq/client/config.h"
#include "nsq/client/consumer.h"

namespace spdlog {
class logger;
}

namespace nsq::tools {

// The consumers of a tool that reads topics until a signal (nsq_tail,
// nsq_to_nsq, nsq_to_http): one per topic on one channel, each connected to
// the tool's sources as soon as it is added, as the Go tools do; a failure
// is log.Fatal.
//
// @par Thread Safety: one thread (main's).
class ConsumerGroup {
 public:
  // log.Fatal if `config` does not validate (go-nsq's NewConsumer check).
  ConsumerGroup(std::string channel, client::Config config, SourceAddresses sources,
                std::shared_ptr<spdlog::logger> log);

  // A consumer of `topic` whose messages go to `handler` on `concurrency`
  // threads, connected (log.Fatal on failure).
  void add(const std::string& topic, client::MessageHandler handler, int concurrency = 1);

  // Stops every consumer, then waits until each is done (its in-flight
  // messages answered).
  void stop();

 private:
  std::string channel_;
  client::Config config_;
  SourceAddresses sources_;
  std::shared_ptr<spdlog::logger> log_;
  std::vector<std::unique_ptr<client::Consumer>> consumers_;
};

}  // namespace nsq::tools
