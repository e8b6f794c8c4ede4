#pragma once

#include <span>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "nsq/config/parse_exit.h"

// What the option parsers of nsqd and nsqlookupd share in their public API
// (option_table.h holds the parse itself): the machine facts parsing needs
// and Go's --version line.
namespace nsq::config {

// What parsing needs from the machine; tests pass their own.
struct ParseEnv {
  std::string hostname;  // default broadcast address (and nsqd's node id)
  std::string compiler;  // the "built w/" part of --version
};

// The real hostname and this build's compiler.
ParseEnv current_parse_env();

// "gcc 12.2.0" or "clang ...": the "built w/" part of --version.
std::string compiler_name();

// "<program> v1.3.0 (built w/<compiler>)", e.g. "nsqd v1.3.0 (built w/gcc 12.2.0)": Go's
// form, kept where Go shows it (the start-up log, /stats?format=text).
std::string version_string(std::string_view program, std::string_view compiler);

// The git commit this build was made from ("0c25185"; "unknown" outside git,
// cmake/BuildCommit.cmake).
std::string_view build_commit();

// What --version prints: Go's form with the commit inside the parentheses,
// e.g. "nsqd v1.3.0 (built w/gcc 12.2.0, commit 0c25185)", so scripts that
// read the first two words still see the program and its version.
std::string version_output(std::string_view program, std::string_view compiler);

// argv[1..argc): the words a parser takes.
std::vector<std::string> command_line_args(int argc, const char* const* argv);

// The options, or what main prints and exits with instead.
template <class Options>
using ParseOutcome = tl::expected<Options, ParseExit>;

}  // namespace nsq::config
