#pragma once

#include <string>

#include "nsq/client/config.h"
#include "nsq/flags/go_flags.h"

// --consumer-opt / --producer-opt: go-nsq's ConfigFlag. Each occurrence is
// applied to the Config while the command line is parsed, so a bad option
// fails like any bad flag value (Go: `invalid value "x" for flag
// -consumer-opt: <reason>`, usage, exit 2).
namespace nsq::tools {

inline constexpr const char* kConsumerOptUsage =
    "option to passthrough to nsq.Consumer (may be given multiple times, "
    "http://godoc.org/github.com/nsqio/go-nsq#Config)";
inline constexpr const char* kProducerOptUsage =
    "option to passthrough to nsq.Producer (may be given multiple times, "
    "http://godoc.org/github.com/nsqio/go-nsq#Config)";

// Registers flag `name` (repeatable, type "value") applying "opt,value" or a
// bare "opt" (= true) to *config, which must outlive fs.parse().
void add_client_option_flag(flags::FlagSet& fs, const std::string& name, client::Config* config,
                            const std::string& usage);

}  // namespace nsq::tools
