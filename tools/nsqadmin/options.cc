#include "options.h"

#include <algorithm>
#include <cctype>

namespace nsq::admin {
namespace {

// Go's lg.LogLevel flag: the level words, any case.
flags::FlagValue log_level_value(GoLogLevel* level) {
  flags::FlagValue value;
  value.type_name = "value";
  value.default_text = "INFO";
  value.set = [level](std::string_view text) -> tl::expected<void, std::string> {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "debug") {
      *level = GoLogLevel::debug;
    } else if (lower == "info") {
      *level = GoLogLevel::info;
    } else if (lower == "warn") {
      *level = GoLogLevel::warn;
    } else if (lower == "error") {
      *level = GoLogLevel::error;
    } else if (lower == "fatal") {
      *level = GoLogLevel::fatal;
    } else {
      return tl::unexpected("invalid log level '" + std::string(text) + "'");
    }
    return {};
  };
  return value;
}

bool has_port(const std::string& address) {
  auto colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  return std::all_of(address.begin() + static_cast<long>(colon) + 1, address.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

void add_flags(flags::FlagSet& fs, Options* o) {
  fs.add_bool("version", &o->show_version, "print version string");
  fs.add("log-level", "set log verbosity: debug, info, warn, error, or fatal",
         log_level_value(&o->log_level));
  fs.add_string("log-prefix", &o->log_prefix, "log message prefix");
  fs.add_string("http-address", &o->http_address, "<addr>:<port> to listen on for HTTP clients");
  fs.add_string("base-path", &o->base_path, "URL base path");
  fs.add_string("graphite-url", &o->graphite_url, "graphite HTTP address");
  fs.add_bool("proxy-graphite", &o->proxy_graphite, "proxy HTTP requests to graphite");
  fs.add_string("statsd-counter-format", &o->statsd_counter_format,
                "The counter stats key formatting applied by the implementation of statsd. If no "
                "formatting is desired, set this to an empty string.");
  fs.add_string("statsd-gauge-format", &o->statsd_gauge_format,
                "The gauge stats key formatting applied by the implementation of statsd. If no "
                "formatting is desired, set this to an empty string.");
  fs.add_string("statsd-prefix", &o->statsd_prefix,
                "prefix used for keys sent to statsd (%s for host replacement, must match nsqd)");
  fs.add_duration("statsd-interval", &o->statsd_interval,
                  "time interval nsqd is configured to push to statsd (must match nsqd)");
  fs.add_string("notification-http-endpoint", &o->notification_http_endpoint,
                "HTTP endpoint (fully qualified) to which POST notifications of admin actions "
                "will be sent");
  fs.add_duration("http-client-connect-timeout", &o->http_client_connect_timeout,
                  "timeout for HTTP connect");
  fs.add_duration("http-client-request-timeout", &o->http_client_request_timeout,
                  "timeout for HTTP request");
  fs.add_string("acl-http-header", &o->acl_http_header,
                "HTTP header to check for authenticated admin users");
  fs.add_string_list("lookupd-http-address", &o->lookupd_http_addresses,
                     "lookupd HTTP address (may be given multiple times)");
  fs.add_string_list("nsqd-http-address", &o->nsqd_http_addresses,
                     "nsqd HTTP address (may be given multiple times)");
  fs.add_string_list("admin-user", &o->admin_users,
                     "admin user (may be given multiple times; if specified, only these users "
                     "will be able to perform privileged actions; acl-http-header is used to "
                     "determine the authenticated user)");
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
