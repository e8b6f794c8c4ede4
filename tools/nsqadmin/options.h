#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "nsq/flags/go_flags.h"
#include "nsq/go_logger.h"

// nsqadmin's command line, with Go nsqadmin v1.3.0's flag names and defaults.
namespace nsq::admin {

struct Options {
  bool show_version = false;
  std::string config;  // TOML file with the same keys (flags given win over it)
  GoLogLevel log_level = GoLogLevel::info;
  std::string log_prefix = "[nsqadmin] ";

  std::string http_address = "0.0.0.0:4171";  // the UI and /api
  // URL prefix the UI and API live under (behind a reverse proxy); normalized
  // to "/x" form by normalize_base_path(), "/" when empty.
  std::string base_path = "/";

  // Development: serve /static/* (and the page template, index.html) from
  // this directory, read at each request, instead of the embedded copy.
  std::string dev_static_dir;

  // Optional: when set, the topic, channel and node pages show graphite
  // charts of nsqd's statsd series, and /api/graphite reads rates from it.
  std::string graphite_url;
  // Chart images through nsqadmin's <base-path>/render (for browsers that
  // cannot reach graphite) instead of straight from --graphite-url.
  bool proxy_graphite = false;
  // These must match nsqd's --statsd-prefix and --statsd-interval and the
  // statsd server's key formats: they name the series in graphite.
  std::string statsd_prefix = "nsq.%s";
  std::string statsd_counter_format = "stats.counters.%s.count";
  std::string statsd_gauge_format = "stats.gauges.%s";
  std::chrono::nanoseconds statsd_interval = std::chrono::seconds(60);

  // nsq-cpp: the in-memory history the pages chart when there is no
  // graphite: one poll of the cluster per interval, kept for duration (older
  // samples averaged into coarser buckets), at most history_max_series
  // topics + channels + nodes. duration 0 turns it off; so does --graphite-url.
  std::chrono::nanoseconds history_duration = std::chrono::hours(1);
  std::chrono::nanoseconds history_interval = std::chrono::seconds(10);
  std::int64_t history_max_series = 2000;

  // Where cluster data comes from: lookupds (which know every nsqd) or a
  // fixed list of nsqd; exactly one of the two.
  std::vector<std::string> lookupd_http_addresses;
  std::vector<std::string> nsqd_http_addresses;

  std::chrono::nanoseconds http_client_connect_timeout = std::chrono::seconds(2);
  std::chrono::nanoseconds http_client_request_timeout = std::chrono::seconds(5);

  // GET/PUT <base-path>/config/:opt answer only requests from this network
  // (others get 403 FORBIDDEN); empty = from anywhere.
  std::string allow_config_from_cidr = "127.0.0.1/8";

  // Go's TLS settings of its HTTP client, used only for https:// URLs
  // (nsqadmin asks lookupd and nsqd over http://; in practice an https://
  // --graphite-url). Checked at startup as Go checks them.
  bool http_client_tls_insecure_skip_verify = false;
  std::string http_client_tls_root_ca_file;
  std::string http_client_tls_cert;
  std::string http_client_tls_key;

  // Fully qualified http:// URL receiving a JSON POST per admin action.
  std::string notification_http_endpoint;

  // Admin actions are allowed to everyone when admin_users is empty; else only
  // to requests whose `acl_http_header` names one of them (the header is set
  // by an authenticating proxy in front of nsqadmin).
  std::string acl_http_header = "X-Forwarded-User";
  std::vector<std::string> admin_users;
};

// Registers Go nsqadmin's flags on fs, storing into *options (which must
// outlive fs.parse()).
void add_flags(flags::FlagSet& fs, Options* options);

// go-options' Resolve after parsing: each option from its flag if given on
// the command line (already in `parsed`), else from the --config file's key
// (Go's names: flag with '_' for '-', and nsqlookupd_http_addresses,
// nsqd_http_addresses, admin_users), else its default. The error is Go's
// fatal text ("failed to load config file <path> - ..." or a coercion error).
tl::expected<Options, std::string> resolve_config(const flags::FlagSet& fs, const Options& parsed);

// Go's checks in New(), in Go's order: the error text of the first failure
// (e.g. "--nsqd-http-address or --lookupd-http-address required").
std::optional<std::string> validation_error(const Options& options);

// Go's normalizeBasePath: "" → "/", a leading "/" added, trailing "/" removed
// (except for "/" itself), "//" collapsed.
std::string normalize_base_path(std::string base_path);

}  // namespace nsq::admin
