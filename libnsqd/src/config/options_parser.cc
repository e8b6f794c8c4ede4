#include "nsqd/options_parser.h"

#include <exception>
#include <utility>
#include <vector>

#include "nsq/config/coerce.h"
#include "nsq/config/config_file.h"
#include "nsq/config/option_table.h"
#include "nsq/flags/go_flags.h"
#include "nsq/flags/go_strconv.h"
#include "config/option_fields.h"

namespace nsq::nsqd {
namespace {

using config::fatal_exit;

// Go's config.Validate: these three are checked as soon as the file is read,
// whether or not a flag overrides them.
tl::expected<void, ParseExit> check_special_keys(const config::Map& cfg) {
  if (auto it = cfg.find("tls_required"); it != cfg.end()) {
    if (!detail::parse_tls_required(config::go_format(it->second))) {
      return tl::unexpected(
          fatal_exit("failed parsing tls_required " + config::go_format(it->second)));
    }
  }
  if (auto it = cfg.find("tls_min_version"); it != cfg.end()) {
    if (!detail::parse_tls_min_version(config::go_format(it->second))) {
      return tl::unexpected(
          fatal_exit("failed parsing tls_min_version " + config::go_format(it->second)));
    }
  }
  if (auto it = cfg.find("log_level"); it != cfg.end()) {
    if (!detail::parse_log_level(config::go_format(it->second))) {
      return tl::unexpected(
          fatal_exit("failed parsing log_level " + config::go_format(it->second)));
    }
  }
  return {};
}

ParseOutcome parse(std::span<const std::string> args, const ParseEnv& env) {
  const Options defaults = default_options(env.hostname);
  Options staged = defaults;  // receives the command-line values
  detail::CommandFlags cmd;

  flags::FlagSet fs("nsqd");
  detail::add_command_flags(fs, cmd);
  const std::vector<detail::OptionField> fields = detail::nsqd_option_fields();
  for (const auto& field : fields) field.add_flag(fs, staged);

  if (auto ok = config::parse_command_line(fs, args); !ok) return tl::unexpected(ok.error());
  // Go nsqd ignores words after the flags (fs.args()).

  if (cmd.version) {
    return tl::unexpected(ParseExit{0, version_string(env.compiler) + "\n", false});
  }

  auto cfg = config::load_config(cmd.config);
  if (!cfg) return tl::unexpected(cfg.error());
  if (auto ok = check_special_keys(*cfg); !ok) return tl::unexpected(ok.error());

  auto resolved = config::resolve_options(fs, fields, staged, defaults, *cfg);
  if (!resolved) return resolved;
  if (auto ok = check_options(*resolved); !ok) {
    return tl::unexpected(fatal_exit("failed to instantiate nsqd - " + ok.error()));
  }
  return resolved;
}

}  // namespace

ParseEnv current_parse_env() { return ParseEnv{os_hostname(), config::compiler_name()}; }

std::string version_string(std::string_view compiler) {
  return "nsqd v1.3.0 (built w/" + std::string(compiler) + ")";
}

ParseOutcome parse_nsqd_options(std::span<const std::string> args, const ParseEnv& env) {
  // Start-up is the one place exceptions are allowed; none may leave here.
  try {
    return parse(args, env);
  } catch (const std::exception& e) {
    return tl::unexpected(fatal_exit(std::string("failed to parse options - ") + e.what()));
  }
}

ParseOutcome parse_nsqd_options(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_nsqd_options(args, current_parse_env());
}

tl::expected<void, std::string> check_options(Options& opts) {
  if (opts.max_deflate_level < 1 || opts.max_deflate_level > 9) {
    return tl::unexpected(std::string("--max-deflate-level must be [1,9]"));
  }
  if (opts.node_id < 0 || opts.node_id >= 1024) {
    return tl::unexpected(std::string("--node-id must be [0,1024)"));
  }
  if (!opts.tls_client_auth_policy.empty() && opts.tls_required == TlsRequired::no) {
    opts.tls_required = TlsRequired::yes;
  }
  const bool has_cert = !opts.tls_cert.empty();
  const bool has_key = !opts.tls_key.empty();
  if (has_cert != has_key) {
    // Go fails here too, when loading the key pair with one path empty.
    return tl::unexpected(std::string(
        "failed to build TLS config - --tls-cert and --tls-key must be given together"));
  }
  if (!has_cert && opts.tls_required != TlsRequired::no) {
    return tl::unexpected(
        std::string("cannot require TLS client connections without TLS key and cert"));
  }
  for (const double p : opts.e2e_processing_latency_percentiles) {
    if (p <= 0 || p > 1) {
      return tl::unexpected("invalid E2E processing latency percentile: " +
                            flags::format_go_float(p));
    }
  }
  if (opts.output_buffer_timeout.count() <= 0) {
    return tl::unexpected(std::string("--output-buffer-timeout must be > 0"));
  }
  if (opts.io_threads < 0) {
    return tl::unexpected(std::string("--io-threads must be >= 0"));
  }
  return {};
}

}  // namespace nsq::nsqd
