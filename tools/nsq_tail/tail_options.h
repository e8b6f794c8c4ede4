#pragma once

#include <string>
#include <vector>

#include "common/source_flags.h"
#include "nsq/client/config.h"

namespace nsq::tools::tail {

// nsq_tail's command line, validated (spec/tools.md §1).
struct TailOptions {
  std::vector<std::string> topics;  // --topic, repeatable, at least one
  std::string channel;              // --channel; default "tail<6 digits>#ephemeral"
  SourceAddresses sources;          // exactly one kind
  int max_in_flight = 200;          // lowered to n when 0 < n < max_in_flight
  int total_messages = 0;           // -n; 0 = forever
  bool print_topic = false;         // --print-topic
  client::Config config;            // --consumer-opt, then user_agent and max_in_flight
};

// Parses argv; exits as the Go tool does on -h, bad flags, --version and
// failed checks (flag errors 2, checks 1).
TailOptions parse_tail_options(int argc, const char* const* argv);

// "tail%06d#ephemeral" of a random number below 999999.
std::string random_tail_channel();

}  // namespace nsq::tools::tail
