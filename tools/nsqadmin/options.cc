#include "options.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "cidr.h"
#include "nsq/config/config_file.h"
#include "nsq/config/option_table.h"

namespace nsq::admin {
namespace {

using config::option;
using Field = config::OptionField<Options>;

// Every flag with its config key, in Go's order (apps/nsqadmin/main.go).
const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      option("version", "print version string", &Options::show_version),
      config::log_level_option(&Options::log_level),
      option("log-prefix", "log message prefix", &Options::log_prefix),
      option("http-address", "<addr>:<port> to listen on for HTTP clients", &Options::http_address),
      option("base-path", "URL base path", &Options::base_path),
      option("dev-static-dir", "(development use only)", &Options::dev_static_dir),
      option("graphite-url", "graphite HTTP address", &Options::graphite_url),
      option("proxy-graphite", "proxy HTTP requests to graphite", &Options::proxy_graphite),
      option("statsd-counter-format",
             "The counter stats key formatting applied by the implementation of statsd. If no "
             "formatting is desired, set this to an empty string.",
             &Options::statsd_counter_format),
      option("statsd-gauge-format",
             "The gauge stats key formatting applied by the implementation of statsd. If no "
             "formatting is desired, set this to an empty string.",
             &Options::statsd_gauge_format),
      option("statsd-prefix",
             "prefix used for keys sent to statsd (%s for host replacement, must match nsqd)",
             &Options::statsd_prefix),
      option("statsd-interval",
             "time interval nsqd is configured to push to statsd (must match nsqd)",
             &Options::statsd_interval),
      option("history-duration",
             "how long nsqadmin keeps its own history of rates and depths for charts (0 = "
             "none; unused with --graphite-url)",
             &Options::history_duration),
      option("history-interval", "how often nsqadmin samples the cluster for its history",
             &Options::history_interval),
      option("history-max-series",
             "at most this many topics + channels + nodes in nsqadmin's history",
             &Options::history_max_series),
      option("notification-http-endpoint",
             "HTTP endpoint (fully qualified) to which POST notifications of admin actions will "
             "be sent",
             &Options::notification_http_endpoint),
      option("http-client-connect-timeout", "timeout for HTTP connect",
             &Options::http_client_connect_timeout),
      option("http-client-request-timeout", "timeout for HTTP request",
             &Options::http_client_request_timeout),
      option("http-client-tls-insecure-skip-verify",
             "configure the HTTP client to skip verification of TLS certificates",
             &Options::http_client_tls_insecure_skip_verify),
      option("http-client-tls-root-ca-file", "path to CA file for the HTTP client",
             &Options::http_client_tls_root_ca_file),
      option("http-client-tls-cert", "path to certificate file for the HTTP client",
             &Options::http_client_tls_cert),
      option("http-client-tls-key", "path to key file for the HTTP client",
             &Options::http_client_tls_key),
      option("allow-config-from-cidr",
             "A CIDR from which to allow HTTP requests to the /config endpoint",
             &Options::allow_config_from_cidr),
      option("acl-http-header", "HTTP header to check for authenticated admin users",
             &Options::acl_http_header),
      option("lookupd-http-address", "lookupd HTTP address (may be given multiple times)",
             &Options::lookupd_http_addresses, "nsqlookupd_http_addresses"),
      option("nsqd-http-address", "nsqd HTTP address (may be given multiple times)",
             &Options::nsqd_http_addresses, "nsqd_http_addresses"),
      option("admin-user",
             "admin user (may be given multiple times; if specified, only these users will be "
             "able to perform privileged actions; acl-http-header is used to determine the "
             "authenticated user)",
             &Options::admin_users, "admin_users"),
  };
  return table;
}

std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

bool has_port(const std::string& address) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  return std::all_of(address.begin() + static_cast<long>(colon) + 1, address.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

// Go loads the client certificate pair and the CA file in New(), failing
// with these texts; the checks are the same here (OpenSSL reads PEM as Go does).
std::optional<std::string> tls_files_error(const Options& o) {
  if (!o.http_client_tls_cert.empty() && !o.http_client_tls_key.empty()) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    const bool ok =
        ctx != nullptr &&
        SSL_CTX_use_certificate_chain_file(ctx, o.http_client_tls_cert.c_str()) == 1 &&
        SSL_CTX_use_PrivateKey_file(ctx, o.http_client_tls_key.c_str(), SSL_FILETYPE_PEM) == 1 &&
        SSL_CTX_check_private_key(ctx) == 1;
    const std::string reason = openssl_error();
    SSL_CTX_free(ctx);
    if (!ok) {
      return "failed to LoadX509KeyPair " + o.http_client_tls_cert + ", " + o.http_client_tls_key +
             " - " + reason;
    }
  }
  if (!o.http_client_tls_root_ca_file.empty()) {
    std::ifstream in(o.http_client_tls_root_ca_file, std::ios::binary);
    if (!in) {
      return "failed to read TLS root CA file " + o.http_client_tls_root_ca_file + " - open " +
             o.http_client_tls_root_ca_file + ": " + std::strerror(errno);
    }
    const std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Go's AppendCertsFromPEM: true when at least one certificate parsed.
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    X509* cert = bio ? PEM_read_bio_X509(bio, nullptr, nullptr, nullptr) : nullptr;
    const bool any = cert != nullptr;
    X509_free(cert);
    BIO_free(bio);
    ERR_clear_error();
    if (!any) return "failed to AppendCertsFromPEM " + o.http_client_tls_root_ca_file;
  }
  return std::nullopt;
}

}  // namespace

void add_flags(flags::FlagSet& fs, Options* o) {
  fs.add_string("config", &o->config, "path to config file");
  for (const auto& f : fields()) f.add_flag(fs, *o);
}

tl::expected<Options, std::string> resolve_config(const flags::FlagSet& fs, const Options& parsed) {
  if (parsed.config.empty()) return parsed;
  auto cfg = config::load_toml_file(parsed.config);
  if (!cfg) {
    return tl::unexpected("failed to load config file " + parsed.config + " - " + cfg.error());
  }
  Options defaults;
  defaults.config = parsed.config;
  auto resolved = config::resolve_options(fs, fields(), parsed, defaults, *cfg);
  if (!resolved) return tl::unexpected(resolved.error().text);
  return std::move(*resolved);
}

std::optional<std::string> validation_error(const Options& o) {
  if (o.nsqd_http_addresses.empty() && o.lookupd_http_addresses.empty()) {
    return "--nsqd-http-address or --lookupd-http-address required";
  }
  if (!o.nsqd_http_addresses.empty() && !o.lookupd_http_addresses.empty()) {
    return "use --nsqd-http-address or --lookupd-http-address not both";
  }
  if (auto tls = tls_files_error(o)) return tls;
  // Go resolves each address as a TCP address: both host and port are needed.
  for (const auto& a : o.lookupd_http_addresses) {
    if (!has_port(a)) {
      return "failed to resolve --lookupd-http-address (" + a + ") - address " + a +
             ": missing port in address";
    }
  }
  for (const auto& a : o.nsqd_http_addresses) {
    if (!has_port(a)) {
      return "failed to resolve --nsqd-http-address (" + a + ") - address " + a +
             ": missing port in address";
    }
  }
  if (!o.notification_http_endpoint.empty() &&
      o.notification_http_endpoint.rfind("http://", 0) != 0) {
    return "failed to parse --notification-http-endpoint (" + o.notification_http_endpoint +
           ") - only http:// endpoints are supported";
  }
  if (o.http_client_connect_timeout.count() <= 0) {
    return "--http-client-connect-timeout should be positive";
  }
  if (o.http_client_request_timeout.count() <= 0) {
    return "--http-client-request-timeout should be positive";
  }
  if (o.history_duration.count() < 0) return "--history-duration should not be negative";
  if (o.history_duration.count() > 0) {
    if (o.history_interval < std::chrono::milliseconds(100)) {
      return "--history-interval should be at least 100ms";
    }
    if (o.history_interval > o.history_duration) {
      return "--history-interval should not exceed --history-duration";
    }
    if (o.history_max_series <= 0) return "--history-max-series should be positive";
  }
  if (!o.allow_config_from_cidr.empty() && !parse_cidr(o.allow_config_from_cidr)) {
    return "failed to parse --allow-config-from-cidr (" + o.allow_config_from_cidr +
           ") - invalid CIDR address: " + o.allow_config_from_cidr;
  }
  return std::nullopt;
}

std::string normalize_base_path(std::string p) {
  if (p.empty() || p.front() != '/') p.insert(p.begin(), '/');
  std::string out;
  for (char c : p) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace nsq::admin
