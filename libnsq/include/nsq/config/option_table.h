#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>
#include <vector>

#include "nsq/config/coerce.h"
#include "nsq/config/config_file.h"
#include "nsq/config/daemon_options.h"
#include "nsq/config/parse_exit.h"
#include "nsq/flags/go_flags.h"

// A daemon's options as a table: each field of its Options struct tied to a
// command-line flag and a config-file key (Go's `flag:"..." cfg:"..."` struct
// tags), resolved as go-options does: a flag given on the command line wins,
// then the config file's key, then the default. nsqd and nsqlookupd share it,
// and parse_daemon_options, their whole start-up parse.
namespace nsq::config {

using SetResult = tl::expected<void, std::string>;

template <class Options>
struct OptionField {
  std::string flag;
  std::string key;  // config file key
  // Registers the flag on `fs`, storing into `staged` (usage shows staged's
  // current value as the default).
  std::function<void(flags::FlagSet& fs, Options& staged)> add_flag;
  // Sets the option from a config value; the error is go-options' reason.
  std::function<SetResult(const Value& v, Options& out)> from_config;
  // Copies the option (for flags given on the command line).
  std::function<void(const Options& from, Options& to)> copy;
};

// Go's default key for a flag: '-' becomes '_'.
std::string key_of_flag(std::string_view flag);

// A start-up failure: exit code 1, the message on stderr.
ParseExit fatal_exit(std::string message);

// Parses the command line; --help and flag errors end the program as Go's
// flag package does (usage on stdout with 0, the error and usage on stderr with 2).
tl::expected<void, ParseExit> parse_command_line(flags::FlagSet& fs,
                                                 std::span<const std::string> args);

// The config file named by --config (an empty path reads nothing).
tl::expected<Map, ParseExit> load_config(const std::string& path);

namespace detail {

inline void add_typed_flag(flags::FlagSet& fs, std::string flag, std::string* target,
                           std::string usage) {
  fs.add_string(std::move(flag), target, std::move(usage));
}
inline void add_typed_flag(flags::FlagSet& fs, std::string flag, std::int64_t* target,
                           std::string usage) {
  fs.add_int64(std::move(flag), target, std::move(usage));
}
inline void add_typed_flag(flags::FlagSet& fs, std::string flag, int* target, std::string usage) {
  fs.add_int(std::move(flag), target, std::move(usage));
}
inline void add_typed_flag(flags::FlagSet& fs, std::string flag, bool* target, std::string usage) {
  fs.add_bool(std::move(flag), target, std::move(usage));
}
inline void add_typed_flag(flags::FlagSet& fs, std::string flag, std::chrono::nanoseconds* target,
                           std::string usage) {
  fs.add_duration(std::move(flag), target, std::move(usage));
}
inline void add_typed_flag(flags::FlagSet& fs, std::string flag, std::vector<std::string>* target,
                           std::string usage) {
  fs.add_string_list(std::move(flag), target, std::move(usage));
}

inline auto coerce_typed(const Value& v, const std::string*) { return coerce_string(v); }
inline auto coerce_typed(const Value& v, const std::int64_t*) { return coerce_int(v); }
inline auto coerce_typed(const Value& v, const bool*) { return coerce_bool(v); }
inline auto coerce_typed(const Value& v, const std::chrono::nanoseconds*) {
  return coerce_duration(v);
}
inline auto coerce_typed(const Value& v, const std::vector<std::string>*) {
  return coerce_string_list(v);
}
inline auto coerce_typed(const Value& v, const std::vector<double>*) {
  return coerce_float_list(v);
}
inline tl::expected<int, std::string> coerce_typed(const Value& v, const int*) {
  auto r = coerce_int(v);
  if (!r) return tl::unexpected(r.error());
  if (*r < std::numeric_limits<int>::min() || *r > std::numeric_limits<int>::max()) {
    return tl::unexpected(std::string("value out of range"));
  }
  return static_cast<int>(*r);
}

}  // namespace detail

template <class Options, class T>
std::function<void(const Options&, Options&)> copier(T Options::*m) {
  return [m](const Options& from, Options& to) { to.*m = from.*m; };
}

// Stores a config value coerced as go-options coerces the member's type.
template <class Options, class T>
std::function<SetResult(const Value&, Options&)> store_config(T Options::*m) {
  return [m](const Value& v, Options& out) -> SetResult {
    auto r = detail::coerce_typed(v, &(out.*m));
    if (!r) return tl::unexpected(r.error());
    out.*m = std::move(*r);
    return {};
  };
}

// A plain option: a flag of the member's type; the key defaults to the flag's.
template <class Options, class T>
OptionField<Options> option(std::string flag, std::string usage, T Options::*m,
                            std::string key = {}) {
  OptionField<Options> f;
  f.key = key.empty() ? key_of_flag(flag) : std::move(key);
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) {
    detail::add_typed_flag(fs, flag, &(o.*m), usage);
  };
  f.from_config = store_config(m);
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

// An option whose flag and config value are both text read by `parse`
// (Go's flag.Value options: log levels, TLS settings). `flag_value` carries
// how usage shows it (type name, default text, bool-like).
template <class Options, class T, class Parse>
OptionField<Options> text_option(std::string flag, std::string usage, T Options::*m, Parse parse,
                                 flags::FlagValue flag_value, std::string key = {}) {
  OptionField<Options> f;
  f.key = key.empty() ? key_of_flag(flag) : std::move(key);
  f.add_flag = [flag, usage, m, parse, flag_value](flags::FlagSet& fs, Options& o) {
    flags::FlagValue v = flag_value;
    v.set = [&o, m, parse](std::string_view s) -> SetResult {
      auto r = parse(s);
      if (!r) return tl::unexpected(r.error());
      o.*m = std::move(*r);
      return {};
    };
    fs.add(flag, usage, std::move(v));
  };
  f.from_config = [m, parse](const Value& v, Options& out) -> SetResult {
    auto r = parse(go_format(v));
    if (!r) return tl::unexpected(r.error());
    out.*m = std::move(*r);
    return {};
  };
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

// Go's log level names in any case ("debug", "info", "warn", "error",
// "fatal") as their rank 0-4.
tl::expected<int, std::string> parse_log_level_rank(std::string_view s);

// --log-level / log_level, into a member whose enum lists Go's levels in order.
template <class Options, class Level>
OptionField<Options> log_level_option(Level Options::*m) {
  flags::FlagValue shown;
  shown.type_name = "value";
  shown.default_text = "INFO";  // Go prints lg.LogLevel's String()
  auto parse = [](std::string_view s) -> tl::expected<Level, std::string> {
    auto rank = parse_log_level_rank(s);
    if (!rank) return tl::unexpected(rank.error());
    return static_cast<Level>(*rank);
  };
  return text_option(std::string("log-level"),
                     std::string("set log verbosity: debug, info, warn, error, or fatal"), m, parse,
                     std::move(shown));
}

// go-options' Resolve, field by field: the flag given, else the config key,
// else what `opts` holds (the defaults).
template <class Options>
tl::expected<Options, ParseExit> resolve_options(const flags::FlagSet& fs,
                                                 const std::vector<OptionField<Options>>& fields,
                                                 const Options& staged, Options opts,
                                                 const Map& cfg) {
  for (const auto& field : fields) {
    if (fs.is_set(field.flag)) {
      field.copy(staged, opts);
      continue;
    }
    const auto it = cfg.find(field.key);
    if (it == cfg.end()) continue;
    if (auto ok = field.from_config(it->second, opts); !ok) {
      return tl::unexpected(fatal_exit("option resolution failed to coerce " +
                                       go_format(it->second) + " for " + field.key + " - " +
                                       ok.error()));
    }
  }
  return opts;
}

// A flag Go keeps for compatibility that does nothing: a bool.
struct NoOpFlag {
  std::string name;
  std::string usage;
};

// What tells one daemon's start-up parse from another's.
template <class Options>
struct DaemonParser {
  std::string program;  // "nsqd": the flag set's name ("Usage of nsqd:") and --version's
  std::vector<OptionField<Options>> fields;  // in Go's Options order
  // No-op flags besides --verbose, which every daemon has.
  std::vector<NoOpFlag> no_op_flags;
  // Checks of config-file values made as soon as the file is read (Go nsqd's
  // config.Validate), whether or not a flag overrides them. May be empty.
  std::function<tl::expected<void, ParseExit>(const Map&)> check_config;
  // The checks the daemon makes when it starts (Go's nsqd.New); the error
  // becomes "failed to instantiate <program> - <error>". May be empty.
  std::function<tl::expected<void, std::string>(Options&)> check_options;
};

namespace detail {

// The flags that are commands rather than options.
struct CommandFlags {
  bool version = false;
  std::string config;        // --config: the TOML file
  std::deque<bool> ignored;  // the no-op flags' values
};

// --version, --config, --verbose and `no_op_flags`.
void add_command_flags(flags::FlagSet& fs, CommandFlags& cmd,
                       std::span<const NoOpFlag> no_op_flags);

}  // namespace detail

// A daemon's options as Go nsqd and nsqlookupd v1.3.0 read them: flags (Go
// syntax; words after them are ignored), --version, the --config file
// (check_config), go-options' resolution from `defaults`, then
// check_options. Never throws: start-up is the one place exceptions are
// allowed, and none leaves here.
template <class Options>
ParseOutcome<Options> parse_daemon_options(const DaemonParser<Options>& parser, Options defaults,
                                           std::span<const std::string> args,
                                           std::string_view compiler) {
  try {
    Options staged = defaults;  // receives the command-line values
    detail::CommandFlags cmd;
    flags::FlagSet fs(parser.program);
    detail::add_command_flags(fs, cmd, parser.no_op_flags);
    for (const auto& field : parser.fields) field.add_flag(fs, staged);
    if (auto ok = parse_command_line(fs, args); !ok) return tl::unexpected(ok.error());
    if (cmd.version) {
      return tl::unexpected(ParseExit{0, version_output(parser.program, compiler) + "\n", false});
    }
    auto cfg = load_config(cmd.config);
    if (!cfg) return tl::unexpected(cfg.error());
    if (parser.check_config) {
      if (auto ok = parser.check_config(*cfg); !ok) return tl::unexpected(ok.error());
    }
    auto resolved = resolve_options(fs, parser.fields, staged, std::move(defaults), *cfg);
    if (!resolved || !parser.check_options) return resolved;
    if (auto ok = parser.check_options(*resolved); !ok) {
      return tl::unexpected(
          fatal_exit("failed to instantiate " + parser.program + " - " + ok.error()));
    }
    return resolved;
  } catch (const std::exception& e) {
    return tl::unexpected(fatal_exit(std::string("failed to parse options - ") + e.what()));
  }
}

}  // namespace nsq::config
