#pragma once

#include <span>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "nsqd/options.h"
#include "nsq/config/parse_exit.h"

// nsqd's start-up configuration, as Go nsqd v1.3.0 does it: flags (Go
// syntax), then the --config TOML file, then the checks of nsqd.New.
// Precedence per option: flag given on the command line > config file > default.
namespace nsq::nsqd {

// Instead of running, main should print `text` and exit with `exit_code`:
//   0  --help (usage) or --version
//   2  a bad command line (Go's flag message followed by the usage)
//   1  a bad config file or option value; `text` is a log message (no
//      trailing newline) that Go logs at FATAL level, e.g.
//      "failed to instantiate nsqd - --node-id must be [0,1024)"
using ParseExit = config::ParseExit;

// What parsing needs from the machine; tests pass their own.
struct ParseEnv {
  std::string hostname;  // default node id and broadcast address
  std::string compiler;  // the "built w/" part of --version
};

// The real hostname and this build's compiler.
ParseEnv current_parse_env();

// "nsqd v1.3.0 (built w/<compiler>)".
std::string version_string(std::string_view compiler);

using ParseOutcome = tl::expected<Options, ParseExit>;

// args excludes the program name. Never throws.
ParseOutcome parse_nsqd_options(std::span<const std::string> args, const ParseEnv& env);
// argv[0] is the program name; uses current_parse_env().
ParseOutcome parse_nsqd_options(int argc, const char* const* argv);

// The checks Go nsqd makes when it starts (nsqd.New), in its order; also
// turns a non-empty tls_client_auth_policy into tls_required = yes. The
// error is Go's text, e.g. "--max-deflate-level must be [1,9]".
// (Output-buffer-timeout > 0 and io_threads >= 0 are ours.)
tl::expected<void, std::string> check_options(Options& opts);

}  // namespace nsq::nsqd
