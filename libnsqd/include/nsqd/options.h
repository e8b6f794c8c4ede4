#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nsq/go_logger.h"

// nsqd's settings: one field per command-line flag of Go nsqd v1.3.0 (same
// names with '-' -> '_'), plus two of ours. Filled once at startup by
// parse_nsqd_options (options_parser.h): flag > config file > default.
// The defaults below are Go's; the two that depend on the host (node_id,
// broadcast_address) are filled by default_options().
namespace nsq::nsqd {

using LogLevel = GoLogLevel;

// --tls-required: false / true / tcp-https.
enum class TlsRequired {
  no,         // plain TCP and HTTP allowed
  yes,        // TCP must upgrade to TLS; plain HTTP gets 403 TLS_REQUIRED
  tcp_https,  // TCP must upgrade to TLS; plain HTTP allowed
};

// --tls-min-version; values are the TLS protocol version numbers.
enum class TlsVersion : std::uint16_t {
  tls1_0 = 0x0301,
  tls1_1 = 0x0302,
  tls1_2 = 0x0303,
  tls1_3 = 0x0304,
};

struct Options {
  using Duration = std::chrono::nanoseconds;

  // --- basic ---
  // --node-id / `id`: message-id node part, [0,1024). Default
  // CRC32(MD5(hostname)) % 1024 (default_options()).
  std::int64_t node_id = 0;
  LogLevel log_level = LogLevel::info;  // --log-level
  std::string log_prefix = "[nsqd] ";   // --log-prefix

  std::string tcp_address = "0.0.0.0:4150";    // non host:port = unix socket path
  std::string http_address = "0.0.0.0:4151";   // "" disables
  std::string https_address = "0.0.0.0:4152";  // only with tls_cert/tls_key; "" disables
  std::string broadcast_address;               // default: OS hostname (default_options())
  int broadcast_tcp_port = 0;                  // 0 = the actual TCP port
  int broadcast_http_port = 0;                 // 0 = the actual HTTP port
  // --lookupd-tcp-address (repeatable) / `nsqlookupd_tcp_addresses`. Default none.
  std::vector<std::string> lookupd_tcp_addresses;
  // --auth-http-address (repeatable) / `auth_http_addresses`; non-empty enables AUTH.
  std::vector<std::string> auth_http_addresses;
  Duration http_client_connect_timeout = std::chrono::seconds(2);
  Duration http_client_request_timeout = std::chrono::seconds(5);
  // --topology-region / --topology-zone (Go master): where this nsqd runs. With
  // the topology-aware-consumption experiment, a published message goes first
  // to a consumer that IDENTIFYed with the same zone, then the same region.
  std::string topology_region;
  std::string topology_zone;

  // --- disk queue ---
  std::string data_path;                // "" = working directory (resolved by nsqd)
  std::int64_t mem_queue_size = 10000;  // 0 = every message goes to disk
  std::int64_t max_bytes_per_file = 104857600;
  std::int64_t sync_every = 2500;  // reads+writes between fsyncs
  Duration sync_timeout = std::chrono::seconds(2);

  int queue_scan_worker_pool_max = 4;
  int queue_scan_selection_count = 20;

  // --- messages and commands ---
  Duration msg_timeout = std::chrono::minutes(1);
  Duration max_msg_timeout = std::chrono::minutes(15);
  std::int64_t max_msg_size = 1048576;
  Duration max_req_timeout = std::chrono::hours(1);
  // Go master's --max-defer-timeout (after v1.3.0): DPUB's and defer='s
  // bound. Unset, --max-req-timeout bounds them, as it did before.
  std::optional<Duration> max_defer_timeout;
  Duration defer_limit() const { return max_defer_timeout.value_or(max_req_timeout); }
  std::int64_t max_body_size = 5242880;

  // --- client-overridable limits ---
  Duration max_heartbeat_interval = std::chrono::minutes(1);
  std::int64_t max_rdy_count = 2500;
  std::int64_t max_output_buffer_size = 65536;
  Duration max_output_buffer_timeout = std::chrono::seconds(30);
  Duration min_output_buffer_timeout = std::chrono::milliseconds(25);
  Duration output_buffer_timeout = std::chrono::milliseconds(250);  // must be > 0
  int max_channel_consumers = 0;                                    // 0 = unlimited

  // --- statsd ---
  std::string statsd_address;            // "" disables
  std::string statsd_prefix = "nsq.%s";  // %s -> host key (expanded by nsqd at startup)
  Duration statsd_interval = std::chrono::minutes(1);
  bool statsd_mem_stats = true;
  int statsd_udp_packet_size = 508;
  bool statsd_exclude_ephemeral = false;

  // --- end-to-end latency ---
  // --e2e-processing-latency-percentile (repeatable, comma-separated; sorted
  // descending when given as flags) / `e2e_processing_latency_percentiles`.
  // Each in (0,1]. Default none.
  std::vector<double> e2e_processing_latency_percentiles;
  Duration e2e_processing_latency_window_time = std::chrono::minutes(10);

  // --- TLS ---
  std::string tls_cert;
  std::string tls_key;
  // "require" or "require-verify"; anything else requests no client cert.
  // Non-empty forces tls_required = yes when it was no.
  std::string tls_client_auth_policy;
  std::string tls_root_ca_file;
  TlsRequired tls_required = TlsRequired::no;
  TlsVersion tls_min_version = TlsVersion::tls1_0;

  // --- compression ---
  bool deflate = true;
  int max_deflate_level = 6;  // [1,9]
  bool snappy = true;

  // --- nsq-cpp only (not in Go nsqd) ---
  // --sync-publish / `sync_publish`: PUB/MPUB/DPUB and HTTP /pub answer
  // only once the message is fsynced in every channel's disk queue (or the
  // topic's), and a message leaves a disk queue only once it is FIN'd (or
  // handed on durably): a SIGKILL loses nothing acknowledged.
  bool sync_publish = false;
  // --io-threads / `io_threads`: I/O threads (io_contexts); 0 = core count.
  int io_threads = 0;
  // --sigterm / `sigterm`: what SIGTERM does. "clean-shutdown" (Go's: exit
  // now, queues written to disk) or "drain" (refuse new messages, deliver what
  // is queued, exit once everything is FIN'd). docs/operations.md.
  std::string sigterm = "clean-shutdown";
  // What a new topic (--default-message-ttl) or channel (the other two) gets:
  // dead letters and TTL, docs/operations.md. 0 / "" = off.
  std::int64_t default_max_attempts = 0;
  std::string default_dead_letter_topic;
  Duration default_message_ttl = Duration::zero();
  // What a new topic and channel get as max_depth (0 = unbounded) and
  // depth_policy ("reject" or "drop_oldest").
  std::int64_t default_max_depth = 0;
  std::string default_depth_policy = "reject";
  bool sigterm_drains() const { return sigterm == "drain"; }
  // --enable-experiment (repeatable) / `enable_experiment` (Go master); the
  // only one is "topology-aware-consumption".
  std::vector<std::string> experiments;
  static constexpr std::string_view kTopologyAwareConsumption = "topology-aware-consumption";
  bool topology_aware_consumption() const;

  // --- cluster mode (nsq-cpp only, docs/replication.md) ---
  // --etcd-endpoints / `etcd_endpoints`: comma-separated etcd client URLs;
  // non-empty turns cluster mode on.
  std::string etcd_endpoints;
  std::string cluster_name = "nsq";  // etcd key prefix
  int default_replication_factor = 3;
  int min_insync_replicas = 2;
  Duration cluster_lease_ttl = std::chrono::seconds(5);  // whole seconds, >= 1s
};

// Go's defaults with the host-dependent ones filled in: node_id from the
// hostname's hash, broadcast_address = hostname.
Options default_options(std::string_view hostname);

std::string_view to_string(TlsRequired required) noexcept;  // "false", "true", "tcp-https"
std::string_view to_string(TlsVersion version) noexcept;    // "tls1.0", ...

}  // namespace nsq::nsqd
