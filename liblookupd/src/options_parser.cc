#include "lookupd/options_parser.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <utility>
#include <vector>

#include "nsq/config/coerce.h"
#include "nsq/config/config_file.h"
#include "nsq/flags/go_flags.h"

namespace nsq::lookupd {
namespace {

using Result = tl::expected<void, std::string>;

std::string this_compiler() {
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

ParseExit fatal(std::string message) { return ParseExit{1, std::move(message), true}; }

tl::expected<LogLevel, std::string> parse_log_level(std::string_view s) {
  std::string l(s);
  std::transform(l.begin(), l.end(), l.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  if (l == "debug") return LogLevel::debug;
  if (l == "info") return LogLevel::info;
  if (l == "warn") return LogLevel::warn;
  if (l == "error") return LogLevel::error;
  if (l == "fatal") return LogLevel::fatal;
  return tl::unexpected("invalid log level '" + std::string(s) +
                        "' (debug, info, warn, error, fatal)");
}

// One option: its flag, config key (flag with '-' -> '_') and how to set it.
struct Field {
  std::string flag;
  std::function<void(flags::FlagSet&, Options& staged)> add_flag;
  std::function<Result(const config::Value&, Options&)> from_config;
  std::function<void(const Options& from, Options& to)> copy;

  std::string key() const {
    std::string k = flag;
    std::replace(k.begin(), k.end(), '-', '_');
    return k;
  }
};

template <class T, class Coerce>
std::function<Result(const config::Value&, Options&)> store(T Options::*m, Coerce coerce) {
  return [m, coerce](const config::Value& v, Options& out) -> Result {
    auto r = coerce(v);
    if (!r) return tl::unexpected(r.error());
    out.*m = std::move(*r);
    return {};
  };
}

template <class T>
std::function<void(const Options&, Options&)> copier(T Options::*m) {
  return [m](const Options& from, Options& to) { to.*m = from.*m; };
}

Field string_field(std::string flag, std::string usage, std::string Options::*m) {
  Field f{flag, {}, store(m, config::coerce_string), copier(m)};
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) {
    fs.add_string(flag, &(o.*m), usage);
  };
  return f;
}

Field duration_field(std::string flag, std::string usage, Options::Duration Options::*m) {
  Field f{flag, {}, store(m, config::coerce_duration), copier(m)};
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) {
    fs.add_duration(flag, &(o.*m), usage);
  };
  return f;
}

Field log_level_field() {
  Field f;
  f.flag = "log-level";
  f.add_flag = [](flags::FlagSet& fs, Options& o) {
    flags::FlagValue v;
    v.type_name = "value";
    v.default_text = "INFO";  // Go prints lg.LogLevel's String()
    v.set = [&o](std::string_view s) -> Result {
      auto level = parse_log_level(s);
      if (!level) return tl::unexpected(level.error());
      o.log_level = *level;
      return {};
    };
    fs.add("log-level", "set log verbosity: debug, info, warn, error, or fatal", std::move(v));
  };
  f.from_config = [](const config::Value& v, Options& out) -> Result {
    auto level = parse_log_level(config::go_format(v));
    if (!level) return tl::unexpected(level.error());
    out.log_level = *level;
    return {};
  };
  f.copy = copier(&Options::log_level);
  return f;
}

// Go's nsqlookupd Options order.
std::vector<Field> option_fields() {
  using O = Options;
  std::vector<Field> f;
  f.push_back(log_level_field());
  f.push_back(string_field("log-prefix", "log message prefix", &O::log_prefix));
  f.push_back(
      string_field("tcp-address", "<addr>:<port> to listen on for TCP clients", &O::tcp_address));
  f.push_back(string_field("http-address", "<addr>:<port> to listen on for HTTP clients",
                           &O::http_address));
  f.push_back(string_field("broadcast-address",
                           "address of this lookupd node, (default to the OS hostname)",
                           &O::broadcast_address));
  f.push_back(duration_field("inactive-producer-timeout",
                             "duration of time a producer will remain in the active list since "
                             "its last ping",
                             &O::inactive_producer_timeout));
  f.push_back(duration_field("tombstone-lifetime",
                             "duration of time a producer will remain tombstoned if "
                             "registration remains",
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

  if (auto parsed = fs.parse(args); !parsed) {
    if (parsed.error().kind == flags::FlagError::Kind::help) {
      return tl::unexpected(ParseExit{0, fs.usage(), false});
    }
    return tl::unexpected(ParseExit{2, parsed.error().message + "\n" + fs.usage(), true});
  }
  if (version) return tl::unexpected(ParseExit{0, version_string(env.compiler) + "\n", false});

  config::Map cfg;
  if (!config_path.empty()) {
    auto loaded = config::load_toml_file(config_path);
    if (!loaded) {
      return tl::unexpected(
          fatal("failed to load config file " + config_path + " - " + loaded.error()));
    }
    cfg = std::move(*loaded);
  }

  // go-options' Resolve: flag given > config key > default, field by field.
  Options opts = defaults;
  for (const auto& field : fields) {
    if (fs.is_set(field.flag)) {
      field.copy(staged, opts);
      continue;
    }
    const std::string key = field.key();
    const auto it = cfg.find(key);
    if (it == cfg.end()) continue;
    if (auto ok = field.from_config(it->second, opts); !ok) {
      return tl::unexpected(fatal("option resolution failed to coerce " +
                                  config::go_format(it->second) + " for " + key + " - " +
                                  ok.error()));
    }
  }
  return opts;
}

}  // namespace

ParseEnv current_parse_env() { return ParseEnv{os_hostname(), this_compiler()}; }

std::string version_string(std::string_view compiler) {
  return "nsqlookupd v1.3.0 (built w/" + std::string(compiler) + ")";
}

ParseOutcome parse_lookupd_options(std::span<const std::string> args, const ParseEnv& env) {
  try {
    return parse(args, env);
  } catch (const std::exception& e) {
    return tl::unexpected(fatal(std::string("failed to parse options - ") + e.what()));
  }
}

ParseOutcome parse_lookupd_options(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_lookupd_options(args, current_parse_env());
}

}  // namespace nsq::lookupd
