#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

// go-nsq's Config: every option a Producer or Consumer takes, with go-nsq's
// names, defaults and ranges, so `--consumer-opt=name,value` means the same
// thing to our tools as to the Go ones (spec/tools.md §7).
namespace nsq::client {

enum class BackoffStrategy { exponential, full_jitter };

struct Config {
  using Duration = std::chrono::nanoseconds;

  Duration dial_timeout = std::chrono::seconds(1);
  Duration read_timeout = std::chrono::seconds(60);           // 100ms..5m
  Duration write_timeout = std::chrono::seconds(1);           // 100ms..5m
  Duration lookupd_poll_interval = std::chrono::seconds(60);  // 10ms..5m
  double lookupd_poll_jitter = 0.3;                           // 0..1
  Duration lookupd_poll_timeout = std::chrono::seconds(60);
  Duration max_requeue_delay = std::chrono::minutes(15);      // 0..60m
  Duration default_requeue_delay = std::chrono::seconds(90);  // 0..60m
  BackoffStrategy backoff_strategy = BackoffStrategy::exponential;
  Duration max_backoff_duration = std::chrono::minutes(2);       // 0..60m
  Duration backoff_multiplier = std::chrono::seconds(1);         // 0..60m
  int max_attempts = 5;                                          // 0..65535; 0 = unlimited
  Duration low_rdy_idle_timeout = std::chrono::seconds(10);      // 1s..5m
  Duration low_rdy_timeout = std::chrono::seconds(30);           // 1s..5m
  Duration rdy_redistribute_interval = std::chrono::seconds(5);  // 1ms..5s
  std::string client_id;                                         // default: short hostname
  std::string hostname;                                          // default: hostname
  std::string user_agent = "go-nsq/1.1.0";
  Duration heartbeat_interval = std::chrono::seconds(30);  // -1 disables
  int sample_rate = 0;                                     // 0..99
  bool tls_v1 = false;
  std::string tls_root_ca_file;
  bool tls_insecure_skip_verify = false;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_min_version;  // "ssl3.0", "tls1.0", "tls1.1", "tls1.2", "tls1.3"
  bool deflate = false;
  int deflate_level = 6;  // 1..9
  bool snappy = false;
  int64_t output_buffer_size = 16384;
  Duration output_buffer_timeout = std::chrono::milliseconds(250);
  int max_in_flight = 1;                    // >= 0
  Duration msg_timeout = Duration::zero();  // 0 = the server's default
  std::string auth_secret;
  bool skip_lookupd_authorization = true;

  // Fills client_id and hostname from the machine's name.
  Config();

  // go-nsq's Config.Set with a text value: `name` uses underscores (dashes
  // are accepted too); durations in Go syntax ("250ms"), bools as
  // strconv.ParseBool. Range violations fail here, as in go-nsq.
  // Error e.g. `invalid option max_in_flight: -1 < 0`.
  tl::expected<void, std::string> set(std::string_view name, std::string_view value);

  // Cross-field checks made before connecting (heartbeat vs read timeout).
  tl::expected<void, std::string> validate() const;
};

// Applies one `--consumer-opt`/`--producer-opt` value as the Go tools do:
// "name,value", or a bare "name" meaning true.
tl::expected<void, std::string> apply_option_flag(Config& config, std::string_view flag_value);

}  // namespace nsq::client
