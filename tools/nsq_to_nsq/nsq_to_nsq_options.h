#pragma once

#include <string>
#include <vector>

#include "common/source_flags.h"
#include "nsq/client/config.h"

namespace nsq::tools::to_nsq_bridge {

// How a destination is chosen for each message.
enum class DestinationMode { round_robin, host_pool };

// nsq_to_nsq's command line, validated (spec/tools.md §5).
struct NsqToNsqOptions {
  std::vector<std::string> topics;        // --topic, repeatable, valid names
  std::string channel = "nsq_to_nsq";     // --channel
  std::string destination_topic;          // "" = each source topic's own name
  SourceAddresses sources;                // exactly one kind
  std::vector<std::string> destinations;  // --destination-nsqd-tcp-address, required
  int max_in_flight = 200;
  DestinationMode mode = DestinationMode::host_pool;  // any unknown --mode = round-robin
  int status_every = 250;                             // 0 = off
  std::string require_json_field;
  std::string require_json_value;
  std::vector<std::string> whitelist_json_fields;
  client::Config consumer_config;  // --consumer-opt, user_agent, max_in_flight
  client::Config producer_config;  // --producer-opt, user_agent
};

// Parses argv; exits as the Go tool does (flag errors 2, checks 1, -h 0,
// --version 0).
NsqToNsqOptions parse_nsq_to_nsq_options(int argc, const char* const* argv);

}  // namespace nsq::tools::to_nsq_bridge
