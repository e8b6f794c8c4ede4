#include "lookupd/options_parser.h"

#include <exception>
#include <utility>
#include <vector>

#include "nsq/config/option_table.h"
#include "nsq/flags/go_flags.h"

namespace nsq::lookupd {
namespace {

using Field = config::OptionField<Options>;

// Go's nsqlookupd Options order.
std::vector<Field> option_fields() {
  using O = Options;
  using config::option;
  std::vector<Field> f;
  f.push_back(config::log_level_option(&O::log_level));
  f.push_back(option("log-prefix", "log message prefix", &O::log_prefix));
  f.push_back(option("tcp-address", "<addr>:<port> to listen on for TCP clients", &O::tcp_address));
  f.push_back(
      option("http-address", "<addr>:<port> to listen on for HTTP clients", &O::http_address));
  f.push_back(option("broadcast-address",
                     "address of this lookupd node, (default to the OS hostname)",
                     &O::broadcast_address));
  f.push_back(option("inactive-producer-timeout",
                     "duration of time a producer will remain in the active list since its last "
                     "ping",
                     &O::inactive_producer_timeout));
  f.push_back(option("tombstone-lifetime",
                     "duration of time a producer will remain tombstoned if registration remains",
                     &O::tombstone_lifetime));
  return f;
}

ParseOutcome parse(std::span<const std::string> args, const ParseEnv& env) {
  const Options defaults = default_options(env.hostname);
  Options staged = defaults;
  bool version = false;
  bool verbose = false;  // deprecated, no effect
  std::string config_path;

  flags::FlagSet fs("nsqlookupd");
  fs.add_string("config", &config_path, "path to config file");
  fs.add_bool("version", &version, "print version string");
  fs.add_bool("verbose", &verbose, "[deprecated] has no effect, use --log-level");
  const std::vector<Field> fields = option_fields();
  for (const auto& field : fields) field.add_flag(fs, staged);

  if (auto ok = config::parse_command_line(fs, args); !ok) return tl::unexpected(ok.error());
  if (version) return tl::unexpected(ParseExit{0, version_string(env.compiler) + "\n", false});
  auto cfg = config::load_config(config_path);
  if (!cfg) return tl::unexpected(cfg.error());
  return config::resolve_options(fs, fields, staged, defaults, *cfg);
}

}  // namespace

ParseEnv current_parse_env() { return ParseEnv{os_hostname(), config::compiler_name()}; }

std::string version_string(std::string_view compiler) {
  return "nsqlookupd v1.3.0 (built w/" + std::string(compiler) + ")";
}

ParseOutcome parse_lookupd_options(std::span<const std::string> args, const ParseEnv& env) {
  try {
    return parse(args, env);
  } catch (const std::exception& e) {
    return tl::unexpected(config::fatal_exit(std::string("failed to parse options - ") + e.what()));
  }
}

ParseOutcome parse_lookupd_options(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_lookupd_options(args, current_parse_env());
}

}  // namespace nsq::lookupd
