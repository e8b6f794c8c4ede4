#pragma once

#include <span>
#include <string>

#include "lookupd/options.h"
#include "nsq/config/daemon_options.h"

// nsqlookupd's start-up configuration as Go nsqlookupd v1.3.0 does it: flags
// (Go syntax), then the --config TOML file. Precedence per option: flag given
// on the command line > config file > default (options.md §1).
namespace nsq::lookupd {

// Instead of running, main should print `text` and exit with `exit_code`:
//   0  --help (usage) or --version ("nsqlookupd v1.3.0 (built w/<compiler>)")
//   2  a bad command line (Go's flag message followed by the usage)
//   1  a bad config file or value; `text` is a FATAL log message
using ParseExit = config::ParseExit;
using ParseEnv = config::ParseEnv;  // env.hostname: the default broadcast address
using ParseOutcome = config::ParseOutcome<Options>;

// args excludes the program name (config::command_line_args). Never throws.
ParseOutcome parse_lookupd_options(std::span<const std::string> args,
                                   const ParseEnv& env = config::current_parse_env());

}  // namespace nsq::lookupd
