#pragma once

#include <string>
#include <vector>

#include "nsq/client/config.h"

namespace nsq::tools::to_nsq {

// to_nsq's command line, validated (spec/tools.md §4). No --version: the Go
// tool has none.
struct ToNsqOptions {
  std::string topic;                  // --topic, required
  std::vector<std::string> nsqd_tcp;  // --nsqd-tcp-address, required, repeatable
  char delimiter = '\n';              // --delimiter, one byte
  int rate = 0;                       // --rate, messages/second; < 1 = unlimited
  client::Config config;              // --producer-opt, then user_agent
};

// Parses argv; exits as the Go tool does (flag errors 2, checks 1).
ToNsqOptions parse_to_nsq_options(int argc, const char* const* argv);

}  // namespace nsq::tools::to_nsq
