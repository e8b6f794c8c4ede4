#include "nsq_to_nsq_options.h"

#include "common/client_option_flags.h"
#include "common/flag_exit.h"
#include "common/go_log.h"
#include "common/version.h"
#include "nsq/flags/go_flags.h"
#include "nsq/names.h"

namespace nsq::tools::to_nsq_bridge {
namespace {

constexpr const char* kConsumerUsage =
    "option to passthrough to nsq.Consumer (may be given multiple times, see "
    "http://godoc.org/github.com/nsqio/go-nsq#Config)";
constexpr const char* kProducerUsage =
    "option to passthrough to nsq.Producer (may be given multiple times, see "
    "http://godoc.org/github.com/nsqio/go-nsq#Config)";

}  // namespace

NsqToNsqOptions parse_nsq_to_nsq_options(int argc, const char* const* argv) {
  NsqToNsqOptions o;
  bool show_version = false;
  std::string mode = "hostpool";
  flags::FlagSet fs(argc > 0 ? argv[0] : "nsq_to_nsq");
  add_version_flag(fs, &show_version);
  fs.add_string("channel", &o.channel, "nsq channel");
  fs.add_string("destination-topic", &o.destination_topic,
                "use this destination topic for all consumed topics (default is consumed topic "
                "name)");
  fs.add_int("max-in-flight", &o.max_in_flight, "max number of messages to allow in flight");
  fs.add_int("status-every", &o.status_every,
             "the # of requests between logging status (per destination), 0 disables");
  fs.add_string("mode", &mode,
                "the upstream request mode options: round-robin, hostpool (default), "
                "epsilon-greedy");
  add_source_flags(fs, &o.sources);
  fs.add_string_list("destination-nsqd-tcp-address", &o.destinations,
                     "destination nsqd TCP address (may be given multiple times)");
  fs.add_string_list("topic", &o.topics, "nsq topic (may be given multiple times)");
  fs.add_string_list("whitelist-json-field", &o.whitelist_json_fields,
                     "for JSON messages: pass this field (may be given multiple times)");
  fs.add_string("require-json-field", &o.require_json_field,
                "for JSON messages: only pass messages that contain this field");
  fs.add_string("require-json-value", &o.require_json_value,
                "for JSON messages: only pass messages in which the required field has this "
                "value");
  add_client_option_flag(fs, "consumer-opt", &o.consumer_config, kConsumerUsage);
  add_client_option_flag(fs, "producer-opt", &o.producer_config, kProducerUsage);
  parse_flags_or_exit(fs, argc, argv);

  exit_if_version(show_version, "nsq_to_nsq");
  if (o.topics.empty() || o.channel.empty()) log_fatal("--topic and --channel are required");
  for (const auto& topic : o.topics) {
    if (!is_valid_topic_name(topic)) log_fatal("--topic is invalid");
  }
  if (!o.destination_topic.empty() && !is_valid_topic_name(o.destination_topic)) {
    log_fatal("--destination-topic is invalid");
  }
  if (!is_valid_channel_name(o.channel)) log_fatal("--channel is invalid");
  require_one_source_or_exit(o.sources);
  if (o.destinations.empty()) log_fatal("--destination-nsqd-tcp-address required");

  o.mode = mode == "hostpool" || mode == "epsilon-greedy" ? DestinationMode::host_pool
                                                          : DestinationMode::round_robin;
  o.consumer_config.user_agent = user_agent("nsq_to_nsq");
  o.consumer_config.max_in_flight = o.max_in_flight;
  o.producer_config.user_agent = user_agent("nsq_to_nsq");
  return o;
}

}  // namespace nsq::tools::to_nsq_bridge
