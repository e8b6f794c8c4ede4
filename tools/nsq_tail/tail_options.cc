#include "tail_options.h"

#include <cstdio>
#include <random>

#include "common/client_option_flags.h"
#include "common/flag_exit.h"
#include "common/go_log.h"
#include "common/version.h"
#include "nsq/flags/go_flags.h"

namespace nsq::tools::tail {

std::string random_tail_channel() {
  std::random_device seed;
  std::mt19937_64 rng(seed());
  char name[32];
  std::snprintf(name, sizeof name, "tail%06d#ephemeral", static_cast<int>(rng() % 999999));
  return name;
}

TailOptions parse_tail_options(int argc, const char* const* argv) {
  TailOptions o;
  bool show_version = false;
  flags::FlagSet fs(argc > 0 ? argv[0] : "nsq_tail");
  add_version_flag(fs, &show_version);
  fs.add_string("channel", &o.channel, "NSQ channel");
  fs.add_int("max-in-flight", &o.max_in_flight, "max number of messages to allow in flight");
  fs.add_int("n", &o.total_messages, "total messages to show (will wait if starved)");
  fs.add_bool("print-topic", &o.print_topic, "print topic name where message was received");
  add_source_flags(fs, &o.sources);
  fs.add_string_list("topic", &o.topics, "NSQ topic (may be given multiple times)");
  add_client_option_flag(fs, "consumer-opt", &o.config, kConsumerOptUsage);
  parse_flags_or_exit(fs, argc, argv);

  exit_if_version(show_version, "nsq_tail");
  if (o.channel.empty()) o.channel = random_tail_channel();
  require_one_source_or_exit(o.sources);
  if (o.topics.empty()) log_fatal("--topic required");

  // Don't ask for more messages than will be shown.
  if (o.total_messages > 0 && o.total_messages < o.max_in_flight) {
    o.max_in_flight = o.total_messages;
  }
  o.config.user_agent = user_agent("nsq_tail");
  o.config.max_in_flight = o.max_in_flight;
  return o;
}

}  // namespace nsq::tools::tail
