#include "config/option_fields.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "nsq/config/coerce.h"
#include "nsq/flags/go_duration.h"
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

using config::copier;
using config::option;

OptionField tls_required_field() {
  flags::FlagValue shown;
  shown.is_bool = true;  // bare --tls-required means true, as in Go
  return config::text_option(std::string("tls-required"),
                             std::string("require TLS for client connections (true, false, "
                                         "tcp-https)"),
                             &Options::tls_required, parse_tls_required, std::move(shown));
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

// Go master's --max-defer-timeout: shown with its 1h default, and unset
// until given, so that a --max-req-timeout given alone still bounds
// defers (Options::defer_limit).
OptionField max_defer_timeout_field() {
  OptionField f;
  f.flag = "max-defer-timeout";
  f.key = "max_defer_timeout";
  f.add_flag = [](flags::FlagSet& fs, Options& o) {
    flags::FlagValue v;
    v.type_name = "duration";
    v.default_text = flags::format_go_duration(std::chrono::hours(1));
    v.set = [&o](std::string_view s) -> Result {
      auto d = flags::parse_go_duration(s);
      if (!d) return tl::unexpected(std::string(flags::describe(flags::NumError::syntax)));
      o.max_defer_timeout = *d;
      return {};
    };
    fs.add("max-defer-timeout",
           "maximum duration when deferring a message (DPUB, defer=); unset: --max-req-timeout",
           std::move(v));
  };
  f.from_config = [](const config::Value& v, Options& out) -> Result {
    auto d = config::coerce_duration(v);
    if (!d) return tl::unexpected(d.error());
    out.max_defer_timeout = *d;
    return {};
  };
  f.copy = copier(&Options::max_defer_timeout);
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
  f.from_config = config::store_config(&Options::e2e_processing_latency_percentiles);
  f.copy = copier(&Options::e2e_processing_latency_percentiles);
  return f;
}

}  // namespace

tl::expected<LogLevel, std::string> parse_log_level(std::string_view s) {
  auto rank = config::parse_log_level_rank(s);
  if (!rank) return tl::unexpected(rank.error());
  return static_cast<LogLevel>(*rank);
}

tl::expected<TlsRequired, std::string> parse_tls_required(std::string_view s) {
  const std::string l = lowercase(s);
  if (l == "tcp-https") return TlsRequired::tcp_https;
  auto b = flags::parse_go_bool(l);
  if (!b)
    return tl::unexpected("strconv.ParseBool: parsing " + flags::go_quote(l) + ": invalid syntax");
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

std::vector<OptionField> nsqd_option_fields() {
  using O = Options;
  std::vector<OptionField> f;
  // Go's Options struct order.
  f.push_back(option("node-id",
                     "unique part for message IDs, (int) in range [0,1024) (default is hash "
                     "of hostname)",
                     &O::node_id, "id"));
  f.push_back(config::log_level_option(&O::log_level));
  f.push_back(option("log-prefix", "log message prefix", &O::log_prefix));

  f.push_back(option("tcp-address", "<addr>:<port> to listen on for TCP clients", &O::tcp_address));
  f.push_back(
      option("http-address", "<addr>:<port> to listen on for HTTP clients", &O::http_address));
  f.push_back(
      option("https-address", "<addr>:<port> to listen on for HTTPS clients", &O::https_address));
  f.push_back(option("broadcast-address",
                     "address that will be registered with lookupd (defaults to the OS "
                     "hostname)",
                     &O::broadcast_address));
  f.push_back(option("broadcast-tcp-port",
                     "TCP port that will be registered with lookupd (defaults to the TCP port "
                     "that this nsqd is listening on)",
                     &O::broadcast_tcp_port));
  f.push_back(option("broadcast-http-port",
                     "HTTP port that will be registered with lookupd (defaults to the HTTP "
                     "port that this nsqd is listening on)",
                     &O::broadcast_http_port));
  f.push_back(option("lookupd-tcp-address", "lookupd TCP address (may be given multiple times)",
                     &O::lookupd_tcp_addresses, "nsqlookupd_tcp_addresses"));
  f.push_back(option("auth-http-address",
                     "<addr>:<port> or a full url to query auth server (may be given "
                     "multiple times)",
                     &O::auth_http_addresses, "auth_http_addresses"));
  f.push_back(option("http-client-connect-timeout", "timeout for HTTP connect",
                     &O::http_client_connect_timeout));
  f.push_back(option("http-client-request-timeout", "timeout for HTTP request",
                     &O::http_client_request_timeout));
  f.push_back(option("topology-region",
                     "A region represents a larger domain, made up of one or more zones for "
                     "preferring closer consumer",
                     &O::topology_region));
  f.push_back(option("topology-zone",
                     "A zone represents a logical failure domain for preferring closer consumer",
                     &O::topology_zone));

  f.push_back(option("data-path", "path to store disk-backed messages", &O::data_path));
  f.push_back(option("mem-queue-size", "number of messages to keep in memory (per topic/channel)",
                     &O::mem_queue_size));
  f.push_back(option("max-bytes-per-file", "number of bytes per diskqueue file before rolling",
                     &O::max_bytes_per_file));
  f.push_back(option("sync-every", "number of messages per diskqueue fsync", &O::sync_every));
  f.push_back(option("sync-timeout", "duration of time per diskqueue fsync", &O::sync_timeout));

  f.push_back(option("queue-scan-selection-count",
                     "number of channels to check per cycle (every 100ms) for in-flight and "
                     "deferred timeouts",
                     &O::queue_scan_selection_count));
  f.push_back(option("queue-scan-worker-pool-max",
                     "max concurrency for checking in-flight and deferred message timeouts",
                     &O::queue_scan_worker_pool_max));

  f.push_back(option("msg-timeout", "default duration to wait before auto-requeing a message",
                     &O::msg_timeout));
  f.push_back(option("max-msg-timeout", "maximum duration before a message will timeout",
                     &O::max_msg_timeout));
  f.push_back(
      option("max-msg-size", "maximum size of a single message in bytes", &O::max_msg_size));
  f.push_back(option("max-body-size", "maximum size of a single command body", &O::max_body_size));
  f.push_back(
      option("max-req-timeout", "maximum requeuing timeout for a message", &O::max_req_timeout));
  f.push_back(max_defer_timeout_field());

  f.push_back(option("max-heartbeat-interval",
                     "maximum client configurable duration of time between client "
                     "heartbeats",
                     &O::max_heartbeat_interval));
  f.push_back(option("max-rdy-count", "maximum RDY count for a client", &O::max_rdy_count));
  f.push_back(option("max-output-buffer-size",
                     "maximum client configurable size (in bytes) for a client output buffer",
                     &O::max_output_buffer_size));
  f.push_back(option("max-output-buffer-timeout",
                     "maximum client configurable duration of time between flushing to a "
                     "client",
                     &O::max_output_buffer_timeout));
  f.push_back(option("min-output-buffer-timeout",
                     "minimum client configurable duration of time between flushing to a "
                     "client",
                     &O::min_output_buffer_timeout));
  f.push_back(option("output-buffer-timeout",
                     "default duration of time between flushing data to clients",
                     &O::output_buffer_timeout));
  f.push_back(option("max-channel-consumers",
                     "maximum channel consumer connection count per nsqd instance (default 0, "
                     "i.e., unlimited)",
                     &O::max_channel_consumers));

  f.push_back(option("statsd-address", "UDP <addr>:<port> of a statsd daemon for pushing stats",
                     &O::statsd_address));
  f.push_back(option("statsd-prefix",
                     "prefix used for keys sent to statsd (%s for host replacement)",
                     &O::statsd_prefix));
  f.push_back(option("statsd-interval", "duration between pushing to statsd", &O::statsd_interval));
  f.push_back(option("statsd-mem-stats", "toggle sending memory and GC stats to statsd",
                     &O::statsd_mem_stats));
  f.push_back(option("statsd-udp-packet-size", "the size in bytes of statsd UDP packets",
                     &O::statsd_udp_packet_size));
  f.push_back(option("statsd-exclude-ephemeral",
                     "Skip ephemeral topics and channels when sending stats to statsd",
                     &O::statsd_exclude_ephemeral));

  f.push_back(option("e2e-processing-latency-window-time",
                     "calculate end to end latency quantiles for this duration of time "
                     "(ie: 60s would only show quantile calculations from the past 60 "
                     "seconds)",
                     &O::e2e_processing_latency_window_time));
  f.push_back(percentiles_field());

  f.push_back(option("tls-cert", "path to certificate file", &O::tls_cert));
  f.push_back(option("tls-key", "path to key file", &O::tls_key));
  f.push_back(option("tls-client-auth-policy",
                     "client certificate auth policy ('require' or 'require-verify')",
                     &O::tls_client_auth_policy));
  f.push_back(
      option("tls-root-ca-file", "path to certificate authority file", &O::tls_root_ca_file));
  f.push_back(tls_required_field());
  f.push_back(tls_min_version_field());

  f.push_back(
      option("deflate", "enable deflate feature negotiation (client compression)", &O::deflate));
  f.push_back(option("max-deflate-level",
                     "max deflate compression level a client can negotiate (> values == > "
                     "nsqd CPU usage)",
                     &O::max_deflate_level));
  f.push_back(
      option("snappy", "enable snappy feature negotiation (client compression)", &O::snappy));
  f.push_back(option("enable-experiment",
                     "enable experimental feature (may be given multiple times) (valid options: "
                     "'topology-aware-consumption')",
                     &O::experiments));

  // nsq-cpp only.
  f.push_back(option("sync-publish",
                     "[nsq-cpp] reply to PUB/MPUB/DPUB and /pub only once the message is "
                     "fsynced to disk (group commit); a message is removed from disk only "
                     "when FIN'd",
                     &O::sync_publish));
  f.push_back(option("io-threads", "[nsq-cpp] number of I/O threads (0 = number of CPU cores)",
                     &O::io_threads));
  f.push_back(option("sigterm",
                     "[nsq-cpp] on SIGTERM: 'clean-shutdown' (exit now) or 'drain' (refuse new "
                     "messages, deliver the queued ones, then exit)",
                     &O::sigterm));
  f.push_back(option("default-max-attempts",
                     "[nsq-cpp] a new channel's max_attempts: a message timed out or REQ'd "
                     "after this many attempts leaves it (0 = off)",
                     &O::default_max_attempts));
  f.push_back(option("default-dead-letter-topic",
                     "[nsq-cpp] a new channel's dead_letter_topic: where messages out of "
                     "attempts or past their TTL go (empty = dropped)",
                     &O::default_dead_letter_topic));
  f.push_back(option("default-message-ttl",
                     "[nsq-cpp] a new topic's message_ttl: older messages are not delivered "
                     "(0 = off)",
                     &O::default_message_ttl));
  f.push_back(option("default-max-depth",
                     "[nsq-cpp] a new topic's and channel's max_depth: messages it may hold "
                     "(0 = unbounded)",
                     &O::default_max_depth));
  f.push_back(option("default-depth-policy",
                     "[nsq-cpp] a new topic's and channel's depth_policy beyond max_depth: "
                     "'reject' (the publish fails) or 'drop_oldest'",
                     &O::default_depth_policy));
  f.push_back(option("etcd-endpoints",
                     "[nsq-cpp] comma-separated etcd URLs (http://host:port); turns cluster "
                     "mode on (replicated topics)",
                     &O::etcd_endpoints));
  f.push_back(option("cluster-name", "[nsq-cpp] cluster mode: the cluster's etcd key prefix",
                     &O::cluster_name));
  f.push_back(option("default-replication-factor",
                     "[nsq-cpp] cluster mode: replicas of a new topic (capped by the live "
                     "nodes; 1 = not replicated)",
                     &O::default_replication_factor));
  f.push_back(option("min-insync-replicas",
                     "[nsq-cpp] cluster mode: in-sync replicas (leader included) a publish "
                     "needs before OK",
                     &O::min_insync_replicas));
  f.push_back(option("cluster-lease-ttl",
                     "[nsq-cpp] cluster mode: this node's etcd lease; a dead leader is "
                     "replaced after it expires",
                     &O::cluster_lease_ttl));
  return f;
}

}  // namespace nsq::nsqd::detail
