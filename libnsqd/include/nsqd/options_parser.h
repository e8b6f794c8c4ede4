#pragma once

#include <span>
#include <string>

#include <tl/expected.hpp>

#include "nsq/config/daemon_options.h"
#include "nsqd/options.h"

// nsqd's start-up configuration, as Go nsqd v1.3.0 does it: flags (Go
// syntax), then the --config TOML file, then the checks of nsqd.New.
// Precedence per option: flag given on the command line > config file > default.
namespace nsq::nsqd {

// Instead of running, main should print `text` and exit with `exit_code`:
//   0  --help (usage) or --version ("nsqd v1.3.0 (built w/<compiler>)")
//   2  a bad command line (Go's flag message followed by the usage)
//   1  a bad config file or option value; `text` is a log message (no
//      trailing newline) that Go logs at FATAL level, e.g.
//      "failed to instantiate nsqd - --node-id must be [0,1024)"
using ParseExit = config::ParseExit;
using ParseEnv = config::ParseEnv;  // env.hostname: the default node id and broadcast address
using ParseOutcome = config::ParseOutcome<Options>;

// args excludes the program name (config::command_line_args). Never throws.
ParseOutcome parse_nsqd_options(std::span<const std::string> args,
                                const ParseEnv& env = config::current_parse_env());

// The checks Go nsqd makes when it starts (nsqd.New), in its order; also
// turns a non-empty tls_client_auth_policy into tls_required = yes. The
// error is Go's text, e.g. "--max-deflate-level must be [1,9]".
// (Output-buffer-timeout > 0 and io_threads >= 0 are ours.)
tl::expected<void, std::string> check_options(Options& opts);

}  // namespace nsq::nsqd
