#include "config_values.h"

#include <rapidjson/document.h>

#include <chrono>
#include <functional>
#include <map>
#include <vector>

#include "cluster_json.h"

namespace nsq::admin {
namespace {

using Render = std::function<ConfigValue(const Options&)>;

Render text(std::string Options::*m) {
  return [m](const Options& o) { return ConfigValue{o.*m, false}; };
}
Render boolean(bool Options::*m) {
  return [m](const Options& o) { return ConfigValue{o.*m ? "true" : "false", true}; };
}
Render nanos(std::chrono::nanoseconds Options::*m) {
  return [m](const Options& o) { return ConfigValue{std::to_string((o.*m).count()), true}; };
}
Render list(std::vector<std::string> Options::*m) {
  return [m](const Options& o) {
    // A flag never given still holds the flag's empty list: "[]", not null.
    JsonOut out;
    out.begin_array();
    for (const auto& s : o.*m) out.string(s);
    out.end_array();
    return ConfigValue{out.take(), true};
  };
}

const std::map<std::string, Render, std::less<>>& table() {
  static const std::map<std::string, Render, std::less<>> t = {
      {"log_level",
       [](const Options& o) {
         return ConfigValue{std::to_string(static_cast<int>(o.log_level) + 1), true};
       }},
      {"log_prefix", text(&Options::log_prefix)},
      {"http_address", text(&Options::http_address)},
      {"base_path", text(&Options::base_path)},
      {"dev_static_dir", text(&Options::dev_static_dir)},
      {"graphite_url", text(&Options::graphite_url)},
      {"proxy_graphite", boolean(&Options::proxy_graphite)},
      {"statsd_counter_format", text(&Options::statsd_counter_format)},
      {"statsd_gauge_format", text(&Options::statsd_gauge_format)},
      {"statsd_prefix", text(&Options::statsd_prefix)},
      {"statsd_interval", nanos(&Options::statsd_interval)},
      {"nsqlookupd_http_addresses", list(&Options::lookupd_http_addresses)},
      {"nsqd_http_addresses", list(&Options::nsqd_http_addresses)},
      {"http_client_connect_timeout", nanos(&Options::http_client_connect_timeout)},
      {"http_client_request_timeout", nanos(&Options::http_client_request_timeout)},
      {"http_client_tls_insecure_skip_verify",
       boolean(&Options::http_client_tls_insecure_skip_verify)},
      {"http_client_tls_root_ca_file", text(&Options::http_client_tls_root_ca_file)},
      {"http_client_tls_cert", text(&Options::http_client_tls_cert)},
      {"http_client_tls_key", text(&Options::http_client_tls_key)},
      {"allow_config_from_cidr", text(&Options::allow_config_from_cidr)},
      {"notification_http_endpoint", text(&Options::notification_http_endpoint)},
      {"acl_http_header", text(&Options::acl_http_header)},
      {"admin_users", list(&Options::admin_users)},
  };
  return t;
}

}  // namespace

std::optional<ConfigValue> config_value(const Options& options, std::string_view key) {
  const auto& t = table();
  auto it = t.find(key);
  if (it == t.end()) return std::nullopt;
  return it->second(options);
}

std::optional<std::vector<std::string>> parse_string_list(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) return std::nullopt;
  if (doc.IsNull()) return std::vector<std::string>{};
  if (!doc.IsArray()) return std::nullopt;
  std::vector<std::string> out;
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
    if (doc[i].IsNull()) {
      out.emplace_back();  // Go leaves the element's zero value
      continue;
    }
    if (!doc[i].IsString()) return std::nullopt;
    out.emplace_back(doc[i].GetString(), doc[i].GetStringLength());
  }
  return out;
}

}  // namespace nsq::admin
