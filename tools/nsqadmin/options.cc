#include "options.h"

#include <algorithm>
#include <cctype>

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
      option("notification-http-endpoint",
             "HTTP endpoint (fully qualified) to which POST notifications of admin actions will "
             "be sent",
             &Options::notification_http_endpoint),
      option("http-client-connect-timeout", "timeout for HTTP connect",
             &Options::http_client_connect_timeout),
      option("http-client-request-timeout", "timeout for HTTP request",
             &Options::http_client_request_timeout),
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

bool has_port(const std::string& address) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  return std::all_of(address.begin() + static_cast<long>(colon) + 1, address.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
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
