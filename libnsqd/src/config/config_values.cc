#include "config/config_values.h"

#include <chrono>
#include <functional>
#include <map>

#include "nsq/json/writer.h"

namespace nsq::nsqd {
namespace {

using Render = std::function<std::string(const Options&)>;

// V1 encoding: strings raw, everything else JSON.
Render raw(std::string Options::*field) {
  return [field](const Options& o) { return o.*field; };
}
template <class T>
Render integer(T Options::*field) {
  return [field](const Options& o) { return std::to_string(o.*field); };
}
Render boolean(bool Options::*field) {
  return [field](const Options& o) { return std::string(o.*field ? "true" : "false"); };
}
Render nanos(Options::Duration Options::*field) {
  return [field](const Options& o) { return std::to_string((o.*field).count()); };
}
Render strings(std::vector<std::string> Options::*field) {
  return [field](const Options& o) { return string_list_json(o.*field); };
}

const std::map<std::string, Render, std::less<>>& table() {
  static const std::map<std::string, Render, std::less<>> t = {
      {"log_level",
       [](const Options& o) { return std::to_string(static_cast<int>(o.log_level) + 1); }},
      {"log_prefix", raw(&Options::log_prefix)},
      {"id", integer(&Options::node_id)},
      {"tcp_address", raw(&Options::tcp_address)},
      {"http_address", raw(&Options::http_address)},
      {"https_address", raw(&Options::https_address)},
      {"broadcast_address", raw(&Options::broadcast_address)},
      {"broadcast_tcp_port", integer(&Options::broadcast_tcp_port)},
      {"broadcast_http_port", integer(&Options::broadcast_http_port)},
      {"nsqlookupd_tcp_addresses", strings(&Options::lookupd_tcp_addresses)},
      {"auth_http_addresses", strings(&Options::auth_http_addresses)},
      {"http_client_connect_timeout", nanos(&Options::http_client_connect_timeout)},
      {"http_client_request_timeout", nanos(&Options::http_client_request_timeout)},
      {"topology_region", raw(&Options::topology_region)},
      {"topology_zone", raw(&Options::topology_zone)},
      {"enable_experiment", strings(&Options::experiments)},
      {"sigterm", raw(&Options::sigterm)},
      {"default_max_attempts", integer(&Options::default_max_attempts)},
      {"default_dead_letter_topic", raw(&Options::default_dead_letter_topic)},
      {"default_message_ttl", nanos(&Options::default_message_ttl)},
      {"default_max_depth", integer(&Options::default_max_depth)},
      {"default_depth_policy", raw(&Options::default_depth_policy)},
      {"data_path", raw(&Options::data_path)},
      {"mem_queue_size", integer(&Options::mem_queue_size)},
      {"max_bytes_per_file", integer(&Options::max_bytes_per_file)},
      {"sync_every", integer(&Options::sync_every)},
      {"sync_timeout", nanos(&Options::sync_timeout)},
      {"queue_scan_worker_pool_max", integer(&Options::queue_scan_worker_pool_max)},
      {"queue_scan_selection_count", integer(&Options::queue_scan_selection_count)},
      {"msg_timeout", nanos(&Options::msg_timeout)},
      {"max_msg_timeout", nanos(&Options::max_msg_timeout)},
      {"max_msg_size", integer(&Options::max_msg_size)},
      {"max_req_timeout", nanos(&Options::max_req_timeout)},
      {"max_defer_timeout",
       [](const Options& o) { return std::to_string(o.defer_limit().count()); }},
      {"max_body_size", integer(&Options::max_body_size)},
      {"max_heartbeat_interval", nanos(&Options::max_heartbeat_interval)},
      {"max_rdy_count", integer(&Options::max_rdy_count)},
      {"max_output_buffer_size", integer(&Options::max_output_buffer_size)},
      {"max_output_buffer_timeout", nanos(&Options::max_output_buffer_timeout)},
      {"min_output_buffer_timeout", nanos(&Options::min_output_buffer_timeout)},
      {"output_buffer_timeout", nanos(&Options::output_buffer_timeout)},
      {"max_channel_consumers", integer(&Options::max_channel_consumers)},
      {"statsd_address", raw(&Options::statsd_address)},
      {"statsd_prefix", raw(&Options::statsd_prefix)},
      {"statsd_interval", nanos(&Options::statsd_interval)},
      {"statsd_mem_stats", boolean(&Options::statsd_mem_stats)},
      {"statsd_udp_packet_size", integer(&Options::statsd_udp_packet_size)},
      {"statsd_exclude_ephemeral", boolean(&Options::statsd_exclude_ephemeral)},
      {"e2e_processing_latency_percentiles",
       [](const Options& o) {
         std::string out = "[";
         for (std::size_t i = 0; i < o.e2e_processing_latency_percentiles.size(); ++i) {
           if (i > 0) out += ',';
           json::append_float(out, o.e2e_processing_latency_percentiles[i]);
         }
         return out + "]";
       }},
      {"e2e_processing_latency_window_time", nanos(&Options::e2e_processing_latency_window_time)},
      {"tls_cert", raw(&Options::tls_cert)},
      {"tls_key", raw(&Options::tls_key)},
      {"tls_client_auth_policy", raw(&Options::tls_client_auth_policy)},
      {"tls_root_ca_file", raw(&Options::tls_root_ca_file)},
      // Go's TLSRequired constants: 0 not required, 1 all but HTTP, 2 required.
      {"tls_required",
       [](const Options& o) {
         switch (o.tls_required) {
           case TlsRequired::no:
             return std::string("0");
           case TlsRequired::tcp_https:
             return std::string("1");
           case TlsRequired::yes:
             return std::string("2");
         }
         return std::string("0");
       }},
      {"tls_min_version",
       [](const Options& o) { return std::to_string(static_cast<int>(o.tls_min_version)); }},
      {"deflate", boolean(&Options::deflate)},
      {"max_deflate_level", integer(&Options::max_deflate_level)},
      {"snappy", boolean(&Options::snappy)},
      // --sync-publish is ours; Go has no such option (GET answers 400 there too).
  };
  return t;
}

}  // namespace

std::string string_list_json(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    json::append_string(out, values[i]);
  }
  return out + "]";
}

std::optional<ConfigValue> config_value(const Options& options, std::string_view key) {
  const auto& t = table();
  auto it = t.find(key);
  if (it == t.end()) return std::nullopt;
  std::string body = it->second(options);
  // Strings go out raw; everything else is JSON.
  static const char* const kStringKeys[] = {"log_prefix",
                                            "tcp_address",
                                            "http_address",
                                            "https_address",
                                            "broadcast_address",
                                            "data_path",
                                            "statsd_address",
                                            "statsd_prefix",
                                            "tls_cert",
                                            "tls_key",
                                            "tls_client_auth_policy",
                                            "tls_root_ca_file",
                                            "topology_region",
                                            "topology_zone",
                                            "sigterm",
                                            "default_dead_letter_topic",
                                            "default_depth_policy"};
  bool is_string = false;
  for (const char* k : kStringKeys) is_string = is_string || key == k;
  return ConfigValue{std::move(body), !is_string};
}

}  // namespace nsq::nsqd
