#include "common/flag_exit.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/version.h"

namespace nsq::tools {

void parse_flags_or_exit(flags::FlagSet& fs, int argc, const char* const* argv) {
  auto parsed = fs.parse(argc, argv);
  if (parsed) return;
  // Go's flag package writes both the error and the usage to stderr.
  if (parsed.error().kind == flags::FlagError::Kind::help) {
    std::fputs(fs.usage().c_str(), stderr);
    std::exit(0);
  }
  std::string text = parsed.error().message + "\n" + fs.usage();
  std::fputs(text.c_str(), stderr);
  std::exit(2);
}

void add_version_flag(flags::FlagSet& fs, bool* show_version) {
  fs.add_bool("version", show_version, "print version string");
}

void exit_if_version(bool show_version, std::string_view tool) {
  if (!show_version) return;
  std::string line = version_output(tool) + "\n";
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
  std::exit(0);
}

}  // namespace nsq::tools
