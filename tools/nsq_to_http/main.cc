// nsq_to_http: flags -> NsqToHttpOptions -> a Consumer whose -n handler
// threads make one HTTP request per message, until SIGINT/SIGTERM.
#include <chrono>

#include "common/client_logger.h"
#include "common/go_log.h"
#include "common/source_flags.h"
#include "common/termination_signals.h"
#include "delivery_handler.h"
#include "http_publisher.h"
#include "nsq/client/consumer.h"
#include "nsq_to_http_options.h"

int main(int argc, char** argv) {
  using namespace nsq::tools;
  using namespace nsq::tools::to_http;
  TerminationSignals signals;  // before any thread exists
  NsqToHttpOptions options = parse_nsq_to_http_options(argc, argv);
  if (auto valid = options.config.validate(); !valid) log_fatal(valid.error());

  HttpPublisher publisher(
      options.post, options.content_type, options.custom_headers,
      std::chrono::duration_cast<std::chrono::milliseconds>(options.connect_timeout),
      std::chrono::duration_cast<std::chrono::milliseconds>(options.request_timeout));
  DeliveryHandler handler(options, &publisher);

  nsq::client::Consumer consumer(options.topic, options.channel, options.config,
                                 make_client_logger("nsq_to_http"));
  consumer.set_handler([&handler](nsq::client::Message& m) { return handler.handle(m); },
                       options.handlers);
  if (auto connected = connect_consumer(consumer, options.sources); !connected) {
    log_fatal(connected.error());
  }

  signals.wait();
  consumer.stop();
  consumer.wait();
  return 0;
}
