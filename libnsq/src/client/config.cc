#include "nsq/client/config.h"

#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "nsq/flags/go_duration.h"
#include "nsq/flags/go_strconv.h"
#include "nsq/hostname.h"

namespace nsq::client {
namespace {

using Duration = Config::Duration;
using SetResult = tl::expected<void, std::string>;
using namespace std::chrono_literals;

// One go-nsq option: how its text becomes a value, with go-nsq's min/max
// tags. The error texts follow go-nsq's Set: "invalid <name> ! <v> < <min>".
struct Option {
  std::string_view name;
  std::function<SetResult(Config&, std::string_view, std::string_view)> set;
};

SetResult range_error(std::string_view name, std::string_view value, std::string_view op,
                      std::string_view bound) {
  return tl::unexpected("invalid " + std::string(name) + " ! " + std::string(value) + " " +
                        std::string(op) + " " + std::string(bound));
}

Option duration_option(std::string_view name, Duration Config::*field,
                       std::optional<Duration> min = std::nullopt,
                       std::optional<Duration> max = std::nullopt) {
  return {name, [=](Config& c, std::string_view n, std::string_view text) -> SetResult {
            auto d = flags::parse_go_duration(text);
            if (!d)
              return tl::unexpected("failed to coerce option " + std::string(n) + " (" +
                                    std::string(text) + ") - " + d.error());
            if (min && *d < *min)
              return range_error(n, flags::format_go_duration(*d), "<",
                                 flags::format_go_duration(*min));
            if (max && *d > *max)
              return range_error(n, flags::format_go_duration(*d), ">",
                                 flags::format_go_duration(*max));
            c.*field = *d;
            return {};
          }};
}

template <class Int>
Option int_option(std::string_view name, Int Config::*field, std::optional<int64_t> min,
                  std::optional<int64_t> max) {
  return {name, [=](Config& c, std::string_view n, std::string_view text) -> SetResult {
            auto v = flags::parse_go_int(text, 10);
            if (!v)
              return tl::unexpected("failed to coerce option " + std::string(n) + " (" +
                                    std::string(text) + ") - " +
                                    std::string(flags::describe(v.error())));
            if (min && *v < *min)
              return range_error(n, std::to_string(*v), "<", std::to_string(*min));
            if (max && *v > *max)
              return range_error(n, std::to_string(*v), ">", std::to_string(*max));
            if (*v < std::numeric_limits<Int>::min() || *v > std::numeric_limits<Int>::max())
              return tl::unexpected("failed to coerce option " + std::string(n) + " (" +
                                    std::string(text) + ") - value out of range");
            c.*field = static_cast<Int>(*v);
            return {};
          }};
}

Option bool_option(std::string_view name, bool Config::*field) {
  return {name, [=](Config& c, std::string_view n, std::string_view text) -> SetResult {
            auto v = flags::parse_go_bool(text);
            if (!v)
              return tl::unexpected("failed to coerce option " + std::string(n) + " (" +
                                    std::string(text) + ") - " +
                                    std::string(flags::describe(v.error())));
            c.*field = *v;
            return {};
          }};
}

Option string_option(std::string_view name, std::string Config::*field) {
  return {name, [=](Config& c, std::string_view, std::string_view text) -> SetResult {
            c.*field = std::string(text);
            return {};
          }};
}

const std::vector<Option>& options() {
  static const std::vector<Option> table = [] {
    std::vector<Option> t;
    t.push_back(duration_option("dial_timeout", &Config::dial_timeout));
    t.push_back(duration_option("read_timeout", &Config::read_timeout, 100ms, 5min));
    t.push_back(duration_option("write_timeout", &Config::write_timeout, 100ms, 5min));
    t.push_back(
        duration_option("lookupd_poll_interval", &Config::lookupd_poll_interval, 10ms, 5min));
    t.push_back({"lookupd_poll_jitter",
                 [](Config& c, std::string_view n, std::string_view text) -> SetResult {
                   auto v = flags::parse_go_float(text);
                   if (!v)
                     return tl::unexpected("failed to coerce option " + std::string(n) + " (" +
                                           std::string(text) + ") - " +
                                           std::string(flags::describe(v.error())));
                   if (*v < 0) return range_error(n, flags::format_go_float(*v), "<", "0");
                   if (*v > 1) return range_error(n, flags::format_go_float(*v), ">", "1");
                   c.lookupd_poll_jitter = *v;
                   return {};
                 }});
    t.push_back(duration_option("lookupd_poll_timeout", &Config::lookupd_poll_timeout));
    t.push_back(duration_option("max_requeue_delay", &Config::max_requeue_delay, 0ns, 60min));
    t.push_back(
        duration_option("default_requeue_delay", &Config::default_requeue_delay, 0ns, 60min));
    t.push_back(
        {"backoff_strategy", [](Config& c, std::string_view, std::string_view text) -> SetResult {
           if (text == "" || text == "exponential") {
             c.backoff_strategy = BackoffStrategy::exponential;
           } else if (text == "full_jitter") {
             c.backoff_strategy = BackoffStrategy::full_jitter;
           } else {
             return tl::unexpected("unknown backoff strategy " + std::string(text));
           }
           return {};
         }});
    t.push_back(duration_option("max_backoff_duration", &Config::max_backoff_duration, 0ns, 60min));
    t.push_back(duration_option("backoff_multiplier", &Config::backoff_multiplier, 0ns, 60min));
    t.push_back(int_option("max_attempts", &Config::max_attempts, 0, 65535));
    t.push_back(duration_option("low_rdy_idle_timeout", &Config::low_rdy_idle_timeout, 1s, 5min));
    t.push_back(duration_option("low_rdy_timeout", &Config::low_rdy_timeout, 1s, 5min));
    t.push_back(
        duration_option("rdy_redistribute_interval", &Config::rdy_redistribute_interval, 1ms, 5s));
    t.push_back(string_option("client_id", &Config::client_id));
    t.push_back(string_option("hostname", &Config::hostname));
    t.push_back(string_option("user_agent", &Config::user_agent));
    t.push_back(duration_option("heartbeat_interval", &Config::heartbeat_interval));
    t.push_back(int_option("sample_rate", &Config::sample_rate, 0, 99));
    t.push_back(bool_option("tls_v1", &Config::tls_v1));
    t.push_back(string_option("tls_root_ca_file", &Config::tls_root_ca_file));
    t.push_back(bool_option("tls_insecure_skip_verify", &Config::tls_insecure_skip_verify));
    t.push_back(string_option("tls_cert", &Config::tls_cert));
    t.push_back(string_option("tls_key", &Config::tls_key));
    t.push_back(
        {"tls_min_version", [](Config& c, std::string_view, std::string_view text) -> SetResult {
           static constexpr std::array<std::string_view, 5> known = {"ssl3.0", "tls1.0", "tls1.1",
                                                                     "tls1.2", "tls1.3"};
           for (auto k : known) {
             if (text == k) {
               c.tls_min_version = std::string(text);
               return {};
             }
           }
           return tl::unexpected("unknown tls_min_version: " + std::string(text));
         }});
    t.push_back(bool_option("deflate", &Config::deflate));
    t.push_back(int_option("deflate_level", &Config::deflate_level, 1, 9));
    t.push_back(bool_option("snappy", &Config::snappy));
    t.push_back(
        int_option("output_buffer_size", &Config::output_buffer_size, std::nullopt, std::nullopt));
    t.push_back(duration_option("output_buffer_timeout", &Config::output_buffer_timeout));
    t.push_back(int_option("max_in_flight", &Config::max_in_flight, 0, std::nullopt));
    t.push_back(duration_option("msg_timeout", &Config::msg_timeout, 0ns));
    t.push_back(string_option("auth_secret", &Config::auth_secret));
    t.push_back(bool_option("skip_lookupd_authorization", &Config::skip_lookupd_authorization));
    return t;
  }();
  return table;
}

}  // namespace

Config::Config() {
  hostname = os_hostname();
  if (hostname.empty()) hostname = "unknown";
  client_id = hostname.substr(0, hostname.find('.'));
}

tl::expected<void, std::string> Config::set(std::string_view name, std::string_view value) {
  std::string key(name);
  for (char& ch : key)
    if (ch == '-') ch = '_';
  for (const Option& option : options()) {
    if (option.name == key) return option.set(*this, key, value);
  }
  return tl::unexpected("invalid option " + std::string(name));
}

tl::expected<void, std::string> Config::validate() const {
  if (heartbeat_interval > read_timeout)
    return tl::unexpected("heartbeat_interval (" + flags::format_go_duration(heartbeat_interval) +
                          ") must be less than read_timeout (" +
                          flags::format_go_duration(read_timeout) + ")");
  bool tls_settings = !tls_root_ca_file.empty() || tls_insecure_skip_verify || !tls_cert.empty() ||
                      !tls_key.empty() || !tls_min_version.empty();
  if (tls_settings && !tls_v1)
    return tl::unexpected(std::string("tls settings given without tls_v1"));
  if (tls_cert.empty() != tls_key.empty())
    return tl::unexpected(std::string("tls_cert and tls_key must both be given"));
  return {};
}

tl::expected<void, std::string> apply_option_flag(Config& config, std::string_view flag_value) {
  auto comma = flag_value.find(',');
  if (comma == std::string_view::npos) return config.set(flag_value, "true");
  return config.set(flag_value.substr(0, comma), flag_value.substr(comma + 1));
}

}  // namespace nsq::client
