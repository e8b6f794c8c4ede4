#include "nsqd/options_parser.h"

#include "config/option_fields.h"
#include "core/queue_settings.h"
#include "nsq/config/coerce.h"
#include "nsq/config/config_file.h"
#include "nsq/config/option_table.h"
#include "nsq/flags/go_strconv.h"
#include "nsq/names.h"

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

config::DaemonParser<Options> parser() {
  config::DaemonParser<Options> p;
  p.program = "nsqd";
  p.fields = detail::nsqd_option_fields();
  // A bool, as in Go.
  p.no_op_flags.push_back({"worker-id", "[deprecated] use --node-id"});
  p.check_config = check_special_keys;
  p.check_options = check_options;
  return p;
}

}  // namespace

ParseOutcome parse_nsqd_options(std::span<const std::string> args, const ParseEnv& env) {
  return config::parse_daemon_options(parser(), default_options(env.hostname), args, env.compiler);
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
  for (const std::string& e : opts.experiments) {
    if (e != Options::kTopologyAwareConsumption) {
      return tl::unexpected("invalid --enable-experiment " + flags::go_quote(e) +
                            " (valid options: '" + std::string(Options::kTopologyAwareConsumption) +
                            "')");
    }
  }
  if (opts.default_max_attempts < 0 || opts.default_max_attempts > QueueSettings::kMaxAttempts) {
    return tl::unexpected(std::string("--default-max-attempts must be in 0..65535"));
  }
  if (!opts.default_dead_letter_topic.empty() &&
      !is_valid_topic_name(opts.default_dead_letter_topic)) {
    return tl::unexpected("invalid --default-dead-letter-topic " +
                          flags::go_quote(opts.default_dead_letter_topic));
  }
  if (opts.default_message_ttl < Options::Duration::zero() ||
      opts.default_message_ttl > QueueSettings::kMaxTtl) {
    return tl::unexpected(std::string("--default-message-ttl must be in 0..87600h"));
  }
  if (opts.default_max_depth < 0 || opts.default_max_depth > QueueSettings::kMaxDepth) {
    return tl::unexpected(std::string("--default-max-depth must be in 0..2^40"));
  }
  if (opts.default_depth_policy != "reject" && opts.default_depth_policy != "drop_oldest") {
    return tl::unexpected("invalid --default-depth-policy " +
                          flags::go_quote(opts.default_depth_policy) +
                          " (valid options: 'reject', 'drop_oldest')");
  }
  if (opts.sigterm != "clean-shutdown" && opts.sigterm != "drain") {
    return tl::unexpected("invalid --sigterm " + flags::go_quote(opts.sigterm) +
                          " (valid options: 'clean-shutdown', 'drain')");
  }
  if (opts.output_buffer_timeout.count() <= 0) {
    return tl::unexpected(std::string("--output-buffer-timeout must be > 0"));
  }
  if (opts.io_threads < 0) {
    return tl::unexpected(std::string("--io-threads must be >= 0"));
  }
  if (opts.default_replication_factor < 1) {
    return tl::unexpected(std::string("--default-replication-factor must be >= 1"));
  }
  if (opts.min_insync_replicas < 1) {
    return tl::unexpected(std::string("--min-insync-replicas must be >= 1"));
  }
  if (opts.cluster_lease_ttl < std::chrono::seconds(1) ||
      opts.cluster_lease_ttl % std::chrono::seconds(1) != Options::Duration::zero()) {
    return tl::unexpected(std::string("--cluster-lease-ttl must be whole seconds, at least 1s"));
  }
  return {};
}

}  // namespace nsq::nsqd
