#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/source_flags.h"
#include "nsq/client/config.h"
#include "nsq/http/message.h"

namespace nsq::tools::to_http {

// Where each message goes: all addresses in turn (any unknown --mode),
// one in turn (round-robin), or one chosen by a HostPool (hostpool,
// epsilon-greedy).
enum class DeliveryMode { all, round_robin, host_pool };

// nsq_to_http's command line, validated (spec/tools.md §6).
struct NsqToHttpOptions {
  std::string topic;
  std::string channel = "nsq_to_http";
  SourceAddresses sources;
  std::vector<std::string> addresses;  // the --get or the --post URLs
  bool post = false;                   // --post given (else --get)
  std::string content_type = "application/octet-stream";
  http::HeaderList custom_headers;  // --header
  DeliveryMode mode = DeliveryMode::host_pool;
  int handlers = 100;  // -n
  int max_in_flight = 200;
  double sample = 1.0;  // 0..1
  std::chrono::nanoseconds connect_timeout = std::chrono::seconds(2);
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(20);
  int status_every = 250;
  client::Config config;  // --consumer-opt, user_agent, max_in_flight
};

// Parses argv; exits as the Go tool does (flag errors 2, checks 1, -h 0,
// --version 0).
NsqToHttpOptions parse_nsq_to_http_options(int argc, const char* const* argv);

}  // namespace nsq::tools::to_http
