#include "to_nsq_options.h"

#include "common/client_option_flags.h"
#include "common/flag_exit.h"
#include "common/go_log.h"
#include "common/version.h"
#include "nsq/flags/go_flags.h"

namespace nsq::tools::to_nsq {

ToNsqOptions parse_to_nsq_options(int argc, const char* const* argv) {
  ToNsqOptions o;
  std::string delimiter = "\n";
  flags::FlagSet fs(argc > 0 ? argv[0] : "to_nsq");
  fs.add_string("topic", &o.topic, "NSQ topic to publish to");
  fs.add_string("delimiter", &delimiter, "character to split input from stdin");
  fs.add_int("rate", &o.rate, "Throttle messages to n/second. 0 to disable");
  fs.add_string_list("nsqd-tcp-address", &o.nsqd_tcp,
                     "destination nsqd TCP address (may be given multiple times)");
  add_client_option_flag(fs, "producer-opt", &o.config, kProducerOptUsage);
  parse_flags_or_exit(fs, argc, argv);

  if (o.topic.empty()) log_fatal("--topic required");
  if (delimiter.size() != 1) log_fatal("--delimiter must be a single byte");
  o.delimiter = delimiter[0];
  o.config.user_agent = user_agent("to_nsq");
  if (o.nsqd_tcp.empty()) log_fatal("--nsqd-tcp-address required");
  return o;
}

}  // namespace nsq::tools::to_nsq
