#include "nsq/config/daemon_options.h"

#include "nsq/hostname.h"

// Set by cmake/BuildCommit.cmake for this file only.
#ifndef NSQ_GIT_COMMIT
#define NSQ_GIT_COMMIT "unknown"
#endif

namespace nsq::config {

ParseEnv current_parse_env() { return ParseEnv{os_hostname(), compiler_name()}; }

std::string compiler_name() {
#if defined(__clang__)
  std::string v = "clang " __clang_version__;
#elif defined(__GNUC__)
  std::string v = "gcc " __VERSION__;
#else
  std::string v = "unknown compiler";
#endif
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

std::string version_string(std::string_view program, std::string_view compiler) {
  return std::string(program) + " v1.3.0 (built w/" + std::string(compiler) + ")";
}

std::string_view build_commit() { return NSQ_GIT_COMMIT; }

std::string version_output(std::string_view program, std::string_view compiler) {
  return std::string(program) + " v1.3.0 (built w/" + std::string(compiler) + ", commit " +
         std::string(build_commit()) + ")";
}

std::vector<std::string> command_line_args(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return args;
}

}  // namespace nsq::config
