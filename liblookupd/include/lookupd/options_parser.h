#pragma once

#include <span>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "lookupd/options.h"
#include "nsq/config/parse_exit.h"

// nsqlookupd's start-up configuration as Go nsqlookupd v1.3.0 does it: flags
// (Go syntax), then the --config TOML file. Precedence per option: flag given
// on the command line > config file > default (options.md §1).
namespace nsq::lookupd {

// Instead of running, main should print `text` and exit with `exit_code`:
//   0  --help (usage) or --version
//   2  a bad command line (Go's flag message followed by the usage)
//   1  a bad config file or value; `text` is a FATAL log message
using ParseExit = config::ParseExit;

// What parsing needs from the machine; tests pass their own.
struct ParseEnv {
  std::string hostname;  // default broadcast address
  std::string compiler;  // the "built w/" part of --version
};

ParseEnv current_parse_env();

// "nsqlookupd v1.3.0 (built w/<compiler>)".
std::string version_string(std::string_view compiler);

using ParseOutcome = tl::expected<Options, ParseExit>;

// args excludes the program name. Never throws.
ParseOutcome parse_lookupd_options(std::span<const std::string> args, const ParseEnv& env);
// argv[0] is the program name; uses current_parse_env().
ParseOutcome parse_lookupd_options(int argc, const char* const* argv);

}  // namespace nsq::lookupd
