#include "option_fields.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "config_coerce.h"
#include "nsq/flags/go_strconv.h"

namespace nsq::nsqd::detail {
namespace {

using Result = tl::expected<void, std::string>;

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

template <class T>
std::function<void(const Options&, Options&)> copier(T Options::*m) {
  return [m](const Options& from, Options& to) { to.*m = from.*m; };
}

std::string key_of(std::string_view flag) {
  std::string key(flag);
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

// Stores a coerced config value into a field, or passes the error on.
template <class T, class Coerce>
std::function<Result(const config::Value&, Options&)> from_config(T Options::*m, Coerce coerce) {
  return [m, coerce](const config::Value& v, Options& out) -> Result {
    auto r = coerce(v);
    if (!r) return tl::unexpected(r.error());
    out.*m = std::move(*r);
    return {};
  };
}

OptionField int64_field(std::string flag, std::string usage, std::int64_t Options::*m,
                        std::string key = {}) {
  OptionField f;
  f.key = key.empty() ? key_of(flag) : std::move(key);
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) { fs.add_int64(flag, &(o.*m), usage); };
  f.from_config = from_config(m, config::coerce_int);
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

OptionField int_field(std::string flag, std::string usage, int Options::*m) {
  OptionField f;
  f.key = key_of(flag);
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) { fs.add_int(flag, &(o.*m), usage); };
  f.from_config = from_config(m, [](const config::Value& v) -> tl::expected<int, std::string> {
    auto r = config::coerce_int(v);
    if (!r) return tl::unexpected(r.error());
    if (*r < std::numeric_limits<int>::min() || *r > std::numeric_limits<int>::max()) {
      return tl::unexpected(std::string("value out of range"));
    }
    return static_cast<int>(*r);
  });
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

OptionField bool_field(std::string flag, std::string usage, bool Options::*m) {
  OptionField f;
  f.key = key_of(flag);
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) { fs.add_bool(flag, &(o.*m), usage); };
  f.from_config = from_config(m, config::coerce_bool);
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

OptionField string_field(std::string flag, std::string usage, std::string Options::*m) {
  OptionField f;
  f.key = key_of(flag);
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) { fs.add_string(flag, &(o.*m), usage); };
  f.from_config = from_config(m, config::coerce_string);
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

OptionField duration_field(std::string flag, std::string usage, Options::Duration Options::*m) {
  OptionField f;
  f.key = key_of(flag);
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) {
    fs.add_duration(flag, &(o.*m), usage);
  };
  f.from_config = from_config(m, config::coerce_duration);
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

OptionField string_list_field(std::string flag, std::string usage,
                              std::vector<std::string> Options::*m, std::string key) {
  OptionField f;
  f.key = std::move(key);
  f.add_flag = [flag, usage, m](flags::FlagSet& fs, Options& o) {
    fs.add_string_list(flag, &(o.*m), usage);
  };
  f.from_config = from_config(m, config::coerce_string_list);
  f.copy = copier(m);
  f.flag = std::move(flag);
  return f;
}

OptionField log_level_field() {
  OptionField f;
  f.flag = "log-level";
  f.key = "log_level";
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
  // Already checked before resolution (Go's config.Validate).
  f.from_config = [](const config::Value& v, Options& out) -> Result {
    auto level = parse_log_level(config::go_format(v));
    if (!level) return tl::unexpected(level.error());
    out.log_level = *level;
    return {};
  };
  f.copy = copier(&Options::log_level);
  return f;
}

OptionField tls_required_field() {
  OptionField f;
  f.flag = "tls-required";
  f.key = "tls_required";
  f.add_flag = [](flags::FlagSet& fs, Options& o) {
    flags::FlagValue v;
    v.is_bool = true;  // bare --tls-required means true, as in Go
    v.set = [&o](std::string_view s) -> Result {
      auto r = parse_tls_required(s);
      if (!r) return tl::unexpected(r.error());
      o.tls_required = *r;
      return {};
    };
    fs.add("tls-required", "require TLS for client connections (true, false, tcp-https)",
           std::move(v));
  };
  f.from_config = [](const config::Value& v, Options& out) -> Result {
    auto r = parse_tls_required(config::go_format(v));
    if (!r) return tl::unexpected(r.error());
    out.tls_required = *r;
    return {};
  };
  f.copy = copier(&Options::tls_required);
  return f;
}

OptionField tls_min_version_field() {
  OptionField f;
  f.flag = "tls-min-version";
  f.key = "tls_min_version";
  f.add_flag = [](flags::FlagSet& fs, Options& o) {
    flags::FlagValue v;
    v.type_name = "value";
    // Go prints the option's numeric value (tls.VersionTLS10).
    v.default_text = std::to_string(static_cast<unsigned>(o.tls_min_version));
    v.set = [&o](std::string_view s) -> Result {
      auto r = parse_tls_min_version(s);
      if (!r) return tl::unexpected(r.error());
      if (*r) o.tls_min_version = **r;
      return {};
    };
    fs.add("tls-min-version",
           "minimum SSL/TLS version acceptable ('ssl3.0', 'tls1.0', 'tls1.1', or 'tls1.2')",
           std::move(v));
  };
  f.from_config = [](const config::Value& v, Options& out) -> Result {
    auto r = parse_tls_min_version(config::go_format(v));
    if (!r) return tl::unexpected(r.error());
    if (*r) out.tls_min_version = **r;
    return {};
  };
  f.copy = copier(&Options::tls_min_version);
  return f;
}

OptionField percentiles_field() {
  OptionField f;
  f.flag = "e2e-processing-latency-percentile";
  f.key = "e2e_processing_latency_percentiles";
  f.add_flag = [](flags::FlagSet& fs, Options& o) {
    flags::FlagValue v;
    v.type_name = "value";
    // NSQ's FloatArray: comma-separated, untrimmed; the list stays sorted
    // descending after every occurrence.
    v.set = [&o](std::string_view s) -> Result {
      auto& list = o.e2e_processing_latency_percentiles;
      for (;;) {
        const auto comma = s.find(',');
        const std::string_view part = s.substr(0, comma);
        auto p = flags::parse_go_float(part);
        if (!p) return tl::unexpected("Could not parse: " + std::string(part));
        list.push_back(*p);
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
      }
      std::stable_sort(list.begin(), list.end(), [](double a, double b) { return a > b; });
      return {};
    };
    fs.add("e2e-processing-latency-percentile",
           "message processing time percentiles (as float (0, 1.0]) to track (can be specified "
           "multiple times or comma separated '1.0,0.99,0.95', default none)",
           std::move(v));
  };
  // Go keeps the config file's order.
  f.from_config = from_config(&Options::e2e_processing_latency_percentiles,
                              config::coerce_float_list);
  f.copy = copier(&Options::e2e_processing_latency_percentiles);
  return f;
}

}  // namespace

tl::expected<LogLevel, std::string> parse_log_level(std::string_view s) {
  const std::string l = lowercase(s);
  if (l == "debug") return LogLevel::debug;
  if (l == "info") return LogLevel::info;
  if (l == "warn") return LogLevel::warn;
  if (l == "error") return LogLevel::error;
  if (l == "fatal") return LogLevel::fatal;
  return tl::unexpected("invalid log level '" + std::string(s) +
                        "' (debug, info, warn, error, fatal)");
}

tl::expected<TlsRequired, std::string> parse_tls_required(std::string_view s) {
  const std::string l = lowercase(s);
  if (l == "tcp-https") return TlsRequired::tcp_https;
  auto b = flags::parse_go_bool(l);
  if (!b) return tl::unexpected("strconv.ParseBool: parsing " + flags::go_quote(l) + ": invalid syntax");
  return *b ? TlsRequired::yes : TlsRequired::no;
}

tl::expected<std::optional<TlsVersion>, std::string> parse_tls_min_version(std::string_view s) {
  const std::string l = lowercase(s);
  if (l.empty()) return std::nullopt;
  if (l == "tls1.0") return TlsVersion::tls1_0;
  if (l == "tls1.1") return TlsVersion::tls1_1;
  if (l == "tls1.2") return TlsVersion::tls1_2;
  if (l == "tls1.3") return TlsVersion::tls1_3;
  return tl::unexpected("unknown tlsVersionOption " + flags::go_quote(l));
}

void add_command_flags(flags::FlagSet& fs, CommandFlags& cmd) {
  fs.add_bool("version", &cmd.version, "print version string");
  fs.add_string("config", &cmd.config, "path to config file");
  fs.add_bool("verbose", &cmd.verbose, "[deprecated] has no effect, use --log-level");
  fs.add_bool("worker-id", &cmd.worker_id, "[deprecated] use --node-id");
}

std::vector<OptionField> nsqd_option_fields() {
  using O = Options;
  std::vector<OptionField> f;
  // Go's Options struct order.
  f.push_back(int64_field("node-id",
                          "unique part for message IDs, (int) in range [0,1024) (default is hash "
                          "of hostname)",
                          &O::node_id, "id"));
  f.push_back(log_level_field());
  f.push_back(string_field("log-prefix", "log message prefix", &O::log_prefix));

  f.push_back(string_field("tcp-address", "<addr>:<port> to listen on for TCP clients",
                           &O::tcp_address));
  f.push_back(string_field("http-address", "<addr>:<port> to listen on for HTTP clients",
                           &O::http_address));
  f.push_back(string_field("https-address", "<addr>:<port> to listen on for HTTPS clients",
                           &O::https_address));
  f.push_back(string_field("broadcast-address",
                           "address that will be registered with lookupd (defaults to the OS "
                           "hostname)",
                           &O::broadcast_address));
  f.push_back(int_field("broadcast-tcp-port",
                        "TCP port that will be registered with lookupd (defaults to the TCP port "
                        "that this nsqd is listening on)",
                        &O::broadcast_tcp_port));
  f.push_back(int_field("broadcast-http-port",
                        "HTTP port that will be registered with lookupd (defaults to the HTTP "
                        "port that this nsqd is listening on)",
                        &O::broadcast_http_port));
  f.push_back(string_list_field("lookupd-tcp-address",
                                "lookupd TCP address (may be given multiple times)",
                                &O::lookupd_tcp_addresses, "nsqlookupd_tcp_addresses"));
  f.push_back(string_list_field("auth-http-address",
                                "<addr>:<port> or a full url to query auth server (may be given "
                                "multiple times)",
                                &O::auth_http_addresses, "auth_http_addresses"));
  f.push_back(duration_field("http-client-connect-timeout", "timeout for HTTP connect",
                             &O::http_client_connect_timeout));
  f.push_back(duration_field("http-client-request-timeout", "timeout for HTTP request",
                             &O::http_client_request_timeout));

  f.push_back(string_field("data-path", "path to store disk-backed messages", &O::data_path));
  f.push_back(int64_field("mem-queue-size",
                          "number of messages to keep in memory (per topic/channel)",
                          &O::mem_queue_size));
  f.push_back(int64_field("max-bytes-per-file",
                          "number of bytes per diskqueue file before rolling",
                          &O::max_bytes_per_file));
  f.push_back(int64_field("sync-every", "number of messages per diskqueue fsync", &O::sync_every));
  f.push_back(duration_field("sync-timeout", "duration of time per diskqueue fsync",
                             &O::sync_timeout));

  f.push_back(int_field("queue-scan-selection-count",
                        "number of channels to check per cycle (every 100ms) for in-flight and "
                        "deferred timeouts",
                        &O::queue_scan_selection_count));
  f.push_back(int_field("queue-scan-worker-pool-max",
                        "max concurrency for checking in-flight and deferred message timeouts",
                        &O::queue_scan_worker_pool_max));

  f.push_back(duration_field("msg-timeout",
                             "default duration to wait before auto-requeing a message",
                             &O::msg_timeout));
  f.push_back(duration_field("max-msg-timeout", "maximum duration before a message will timeout",
                             &O::max_msg_timeout));
  f.push_back(int64_field("max-msg-size", "maximum size of a single message in bytes",
                          &O::max_msg_size));
  f.push_back(int64_field("max-body-size", "maximum size of a single command body",
                          &O::max_body_size));
  f.push_back(duration_field("max-req-timeout", "maximum requeuing timeout for a message",
                             &O::max_req_timeout));

  f.push_back(duration_field("max-heartbeat-interval",
                             "maximum client configurable duration of time between client "
                             "heartbeats",
                             &O::max_heartbeat_interval));
  f.push_back(int64_field("max-rdy-count", "maximum RDY count for a client", &O::max_rdy_count));
  f.push_back(int64_field("max-output-buffer-size",
                          "maximum client configurable size (in bytes) for a client output buffer",
                          &O::max_output_buffer_size));
  f.push_back(duration_field("max-output-buffer-timeout",
                             "maximum client configurable duration of time between flushing to a "
                             "client",
                             &O::max_output_buffer_timeout));
  f.push_back(duration_field("min-output-buffer-timeout",
                             "minimum client configurable duration of time between flushing to a "
                             "client",
                             &O::min_output_buffer_timeout));
  f.push_back(duration_field("output-buffer-timeout",
                             "default duration of time between flushing data to clients",
                             &O::output_buffer_timeout));
  f.push_back(int_field("max-channel-consumers",
                        "maximum channel consumer connection count per nsqd instance (default 0, "
                        "i.e., unlimited)",
                        &O::max_channel_consumers));

  f.push_back(string_field("statsd-address",
                           "UDP <addr>:<port> of a statsd daemon for pushing stats",
                           &O::statsd_address));
  f.push_back(string_field("statsd-prefix",
                           "prefix used for keys sent to statsd (%s for host replacement)",
                           &O::statsd_prefix));
  f.push_back(duration_field("statsd-interval", "duration between pushing to statsd",
                             &O::statsd_interval));
  f.push_back(bool_field("statsd-mem-stats", "toggle sending memory and GC stats to statsd",
                         &O::statsd_mem_stats));
  f.push_back(int_field("statsd-udp-packet-size", "the size in bytes of statsd UDP packets",
                        &O::statsd_udp_packet_size));
  f.push_back(bool_field("statsd-exclude-ephemeral",
                         "Skip ephemeral topics and channels when sending stats to statsd",
                         &O::statsd_exclude_ephemeral));

  f.push_back(duration_field("e2e-processing-latency-window-time",
                             "calculate end to end latency quantiles for this duration of time "
                             "(ie: 60s would only show quantile calculations from the past 60 "
                             "seconds)",
                             &O::e2e_processing_latency_window_time));
  f.push_back(percentiles_field());

  f.push_back(string_field("tls-cert", "path to certificate file", &O::tls_cert));
  f.push_back(string_field("tls-key", "path to key file", &O::tls_key));
  f.push_back(string_field("tls-client-auth-policy",
                           "client certificate auth policy ('require' or 'require-verify')",
                           &O::tls_client_auth_policy));
  f.push_back(string_field("tls-root-ca-file", "path to certificate authority file",
                           &O::tls_root_ca_file));
  f.push_back(tls_required_field());
  f.push_back(tls_min_version_field());

  f.push_back(bool_field("deflate", "enable deflate feature negotiation (client compression)",
                         &O::deflate));
  f.push_back(int_field("max-deflate-level",
                        "max deflate compression level a client can negotiate (> values == > "
                        "nsqd CPU usage)",
                        &O::max_deflate_level));
  f.push_back(bool_field("snappy", "enable snappy feature negotiation (client compression)",
                         &O::snappy));

  // nsq-cpp only.
  f.push_back(bool_field("sync-publish",
                         "[nsq-cpp] reply to PUB/MPUB/DPUB and /pub only once the message is "
                         "fsynced to disk (group commit); a message is removed from disk only "
                         "when FIN'd",
                         &O::sync_publish));
  f.push_back(int_field("io-threads", "[nsq-cpp] number of I/O threads (0 = number of CPU cores)",
                        &O::io_threads));
  return f;
}

}  // namespace nsq::nsqd::detail
