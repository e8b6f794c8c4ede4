#include "nsq/config/option_table.h"

#include <algorithm>

namespace nsq::config {

std::string key_of_flag(std::string_view flag) {
  std::string key(flag);
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

tl::expected<int, std::string> parse_log_level_rank(std::string_view s) {
  std::string l(s);
  for (char& c : l) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  static constexpr std::string_view kNames[] = {"debug", "info", "warn", "error", "fatal"};
  for (int rank = 0; rank < 5; ++rank) {
    if (l == kNames[rank]) return rank;
  }
  return tl::unexpected("invalid log level '" + std::string(s) +
                        "' (debug, info, warn, error, fatal)");
}

ParseExit fatal_exit(std::string message) { return ParseExit{1, std::move(message), true}; }

tl::expected<void, ParseExit> parse_command_line(flags::FlagSet& fs,
                                                 std::span<const std::string> args) {
  auto parsed = fs.parse(args);
  if (parsed) return {};
  if (parsed.error().kind == flags::FlagError::Kind::help) {
    return tl::unexpected(ParseExit{0, fs.usage(), false});
  }
  return tl::unexpected(ParseExit{2, parsed.error().message + "\n" + fs.usage(), true});
}

tl::expected<Map, ParseExit> load_config(const std::string& path) {
  if (path.empty()) return Map{};
  auto loaded = load_toml_file(path);
  if (!loaded) {
    return tl::unexpected(
        fatal_exit("failed to load config file " + path + " - " + loaded.error()));
  }
  return std::move(*loaded);
}

namespace detail {

void add_command_flags(flags::FlagSet& fs, CommandFlags& cmd,
                       std::span<const NoOpFlag> no_op_flags) {
  fs.add_bool("version", &cmd.version, "print version string");
  fs.add_string("config", &cmd.config, "path to config file");
  fs.add_bool("verbose", &cmd.ignored.emplace_back(false),
              "[deprecated] has no effect, use --log-level");
  for (const NoOpFlag& flag : no_op_flags) {
    fs.add_bool(flag.name, &cmd.ignored.emplace_back(false), flag.usage);
  }
}

}  // namespace detail

}  // namespace nsq::config
