// nsq_to_http: flags -> NsqToHttpOptions -> a Consumer whose -n handler
// threads make one HTTP request per message, until SIGINT/SIGTERM.
#include <chrono>

#include "common/consumer_group.h"
#include "common/termination_signals.h"
#include "delivery_handler.h"
#include "http_publisher.h"
#include "nsq/go_logger.h"
#include "nsq_to_http_options.h"

int main(int argc, char** argv) {
  using namespace nsq::tools;
  using namespace nsq::tools::to_http;
  TerminationSignals signals;  // before any thread exists
  NsqToHttpOptions options = parse_nsq_to_http_options(argc, argv);
  ConsumerGroup consumers(options.channel, options.config, options.sources,
                          nsq::make_go_client_logger("nsq_to_http"));

  HttpPublisher publisher(
      options.post, options.content_type, options.custom_headers,
      std::chrono::duration_cast<std::chrono::milliseconds>(options.connect_timeout),
      std::chrono::duration_cast<std::chrono::milliseconds>(options.request_timeout));
  DeliveryHandler handler(options, &publisher);
  consumers.add(
      options.topic, [&handler](nsq::client::Message& m) { return handler.handle(m); },
      options.handlers);

  signals.wait();
  consumers.stop();
  return 0;
}
