#pragma once

#include <string_view>

#include "nsq/flags/go_flags.h"

// How the Go tools end on their command line (they use Go's global
// flag.CommandLine, which is ExitOnError).
namespace nsq::tools {

// Parses argv[1..] into fs. On -h/--help: usage to stderr, exit 0. On a bad
// flag: Go's message, a newline and the usage to stderr, exit 2. Returns
// only when parsing succeeded. Name the FlagSet argv[0], as Go does in
// "Usage of <argv[0]>:".
void parse_flags_or_exit(flags::FlagSet& fs, int argc, const char* const* argv);

// Registers `--version` ("print version string").
void add_version_flag(flags::FlagSet& fs, bool* show_version);

// If show_version: prints "<tool> v1.3.0\n" to stdout and exits 0.
void exit_if_version(bool show_version, std::string_view tool);

}  // namespace nsq::tools
