#include "nsqd/options_parser.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "nsq/config/daemon_options.h"
#include "nsq/id_generator.h"

namespace nsq::nsqd {
namespace {

using namespace std::chrono_literals;

const ParseEnv kEnv{"testhost", "gcc 12"};

ParseOutcome parse(std::vector<std::string> args) { return parse_nsqd_options(args, kEnv); }

Options parse_ok(std::vector<std::string> args) {
  auto r = parse(args);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().text);
  return r.value_or(Options{});
}

ParseExit parse_exit(std::vector<std::string> args) {
  auto r = parse(args);
  EXPECT_FALSE(r.has_value());
  return r ? ParseExit{-1, "", false} : r.error();
}

// A TOML file in a fresh temp directory, removed with the test.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "nsqd_opts_XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    path_ = dir_ + "/nsqd.cfg";
    std::ofstream(path_) << text;
  }
  ~ConfigFile() { std::filesystem::remove_all(dir_); }
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;

  std::string flag() const { return "--config=" + path_; }
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
};

Options from_config(const std::string& toml, std::vector<std::string> more = {}) {
  ConfigFile cfg(toml);
  more.insert(more.begin(), cfg.flag());
  return parse_ok(more);
}

ParseExit config_exit(const std::string& toml) {
  ConfigFile cfg(toml);
  return parse_exit({cfg.flag()});
}

TEST(NsqdOptions, DefaultsMatchGo) {
  const Options o = parse_ok({});
  EXPECT_EQ(o.node_id, nsq::default_node_id("testhost"));
  EXPECT_GE(o.node_id, 0);
  EXPECT_LT(o.node_id, 1024);
  EXPECT_EQ(o.log_level, LogLevel::info);
  EXPECT_EQ(o.log_prefix, "[nsqd] ");
  EXPECT_EQ(o.tcp_address, "0.0.0.0:4150");
  EXPECT_EQ(o.http_address, "0.0.0.0:4151");
  EXPECT_EQ(o.https_address, "0.0.0.0:4152");
  EXPECT_EQ(o.broadcast_address, "testhost");
  EXPECT_EQ(o.broadcast_tcp_port, 0);
  EXPECT_EQ(o.broadcast_http_port, 0);
  EXPECT_TRUE(o.lookupd_tcp_addresses.empty());
  EXPECT_TRUE(o.auth_http_addresses.empty());
  EXPECT_EQ(o.http_client_connect_timeout, 2s);
  EXPECT_EQ(o.http_client_request_timeout, 5s);
  EXPECT_EQ(o.data_path, "");
  EXPECT_EQ(o.mem_queue_size, 10000);
  EXPECT_EQ(o.max_bytes_per_file, 104857600);
  EXPECT_EQ(o.sync_every, 2500);
  EXPECT_EQ(o.sync_timeout, 2s);
  EXPECT_EQ(o.queue_scan_worker_pool_max, 4);
  EXPECT_EQ(o.queue_scan_selection_count, 20);
  EXPECT_EQ(o.msg_timeout, 1min);
  EXPECT_EQ(o.max_msg_timeout, 15min);
  EXPECT_EQ(o.max_msg_size, 1048576);
  EXPECT_EQ(o.max_req_timeout, 1h);
  EXPECT_EQ(o.max_body_size, 5242880);
  EXPECT_EQ(o.max_heartbeat_interval, 1min);
  EXPECT_EQ(o.max_rdy_count, 2500);
  EXPECT_EQ(o.max_output_buffer_size, 65536);
  EXPECT_EQ(o.max_output_buffer_timeout, 30s);
  EXPECT_EQ(o.min_output_buffer_timeout, 25ms);
  EXPECT_EQ(o.output_buffer_timeout, 250ms);
  EXPECT_EQ(o.max_channel_consumers, 0);
  EXPECT_EQ(o.statsd_address, "");
  EXPECT_EQ(o.statsd_prefix, "nsq.%s");
  EXPECT_EQ(o.statsd_interval, 1min);
  EXPECT_TRUE(o.statsd_mem_stats);
  EXPECT_EQ(o.statsd_udp_packet_size, 508);
  EXPECT_FALSE(o.statsd_exclude_ephemeral);
  EXPECT_TRUE(o.e2e_processing_latency_percentiles.empty());
  EXPECT_EQ(o.e2e_processing_latency_window_time, 10min);
  EXPECT_EQ(o.tls_cert, "");
  EXPECT_EQ(o.tls_key, "");
  EXPECT_EQ(o.tls_client_auth_policy, "");
  EXPECT_EQ(o.tls_root_ca_file, "");
  EXPECT_EQ(o.tls_required, TlsRequired::no);
  EXPECT_EQ(o.tls_min_version, TlsVersion::tls1_0);
  EXPECT_TRUE(o.deflate);
  EXPECT_EQ(o.max_deflate_level, 6);
  EXPECT_TRUE(o.snappy);
  EXPECT_FALSE(o.sync_publish);
  EXPECT_EQ(o.io_threads, 0);
}

TEST(NsqdOptions, DefaultOptionsUsesHostname) {
  const Options o = default_options("example.org");
  EXPECT_EQ(o.broadcast_address, "example.org");
  EXPECT_EQ(o.node_id, nsq::default_node_id("example.org"));
}

TEST(NsqdOptions, EveryFlagForm) {
  EXPECT_EQ(parse_ok({"-mem-queue-size", "5"}).mem_queue_size, 5);
  EXPECT_EQ(parse_ok({"-mem-queue-size=5"}).mem_queue_size, 5);
  EXPECT_EQ(parse_ok({"--mem-queue-size", "5"}).mem_queue_size, 5);
  EXPECT_EQ(parse_ok({"--mem-queue-size=5"}).mem_queue_size, 5);
  EXPECT_FALSE(parse_ok({"-snappy=false"}).snappy);
  EXPECT_TRUE(parse_ok({"-snappy=false", "--snappy"}).snappy);
  EXPECT_FALSE(parse_ok({"--deflate=0"}).deflate);
}

TEST(NsqdOptions, FalseWordAfterBoolIsIgnoredPositional) {
  // Go: "false" is the first positional argument; nsqd ignores positionals,
  // and nothing after it is parsed as a flag.
  const Options o = parse_ok({"--snappy", "false", "--mem-queue-size=5"});
  EXPECT_TRUE(o.snappy);
  EXPECT_EQ(o.mem_queue_size, 10000);
}

TEST(NsqdOptions, RepeatedLookupdAndAuthAddresses) {
  const Options o = parse_ok({"--lookupd-tcp-address=127.0.0.1:4160", "-lookupd-tcp-address",
                              "10.0.0.1:4160", "--auth-http-address", "http://a/auth"});
  EXPECT_EQ(o.lookupd_tcp_addresses, (std::vector<std::string>{"127.0.0.1:4160", "10.0.0.1:4160"}));
  EXPECT_EQ(o.auth_http_addresses, std::vector<std::string>{"http://a/auth"});
}

TEST(NsqdOptions, PercentilesSplitRepeatAndSortDescending) {
  const Options o = parse_ok({"--e2e-processing-latency-percentile=0.5,0.99",
                              "--e2e-processing-latency-percentile", "1.0"});
  EXPECT_EQ(o.e2e_processing_latency_percentiles, (std::vector<double>{1.0, 0.99, 0.5}));
}

TEST(NsqdOptions, PercentileOutOfRange) {
  for (const auto& [arg, shown] : std::vector<std::pair<std::string, std::string>>{
           {"0", "0"}, {"1.5", "1.5"}, {"-0.5", "-0.5"}, {"0.9,2", "2"}}) {
    const ParseExit e = parse_exit({"--e2e-processing-latency-percentile=" + arg});
    EXPECT_EQ(e.exit_code, 1) << arg;
    EXPECT_EQ(e.text,
              "failed to instantiate nsqd - invalid E2E processing latency percentile: " + shown)
        << arg;
  }
}

TEST(NsqdOptions, PercentileParseError) {
  const ParseExit e = parse_exit({"--e2e-processing-latency-percentile=0.9, 0.5"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.text.substr(0, e.text.find('\n')),
            "invalid value \"0.9, 0.5\" for flag -e2e-processing-latency-percentile: Could not "
            "parse:  0.5");
}

TEST(NsqdOptions, Durations) {
  const Options o = parse_ok({"--msg-timeout=1m30s", "--output-buffer-timeout", "250ms",
                              "--sync-timeout=1.5s", "--max-req-timeout=2h"});
  EXPECT_EQ(o.msg_timeout, 90s);
  EXPECT_EQ(o.output_buffer_timeout, 250ms);
  EXPECT_EQ(o.sync_timeout, 1500ms);
  EXPECT_EQ(o.max_req_timeout, 2h);
}

// Go master's --max-defer-timeout: 1h by default; left unset, a given
// --max-req-timeout bounds defers as before; flag or config key alike.
TEST(NsqdOptions, MaxDeferTimeoutFallsBackToMaxReqTimeout) {
  EXPECT_EQ(parse_ok({}).defer_limit(), 1h);
  EXPECT_EQ(parse_ok({"--max-req-timeout=2h"}).defer_limit(), 2h);
  EXPECT_EQ(parse_ok({"--max-req-timeout=2h", "-max-defer-timeout", "30m"}).defer_limit(), 30min);
  EXPECT_EQ(parse_ok({"--max-req-timeout=2h", "-max-defer-timeout", "30m"}).max_req_timeout, 2h);
  EXPECT_EQ(from_config("max_defer_timeout = \"90s\"\n").defer_limit(), 90s);
  EXPECT_EQ(from_config("max_defer_timeout = 5000\n").defer_limit(), 5s) << "integer: ms";
  EXPECT_NE(parse_exit({"--max-defer-timeout=soon"}).exit_code, 0);
  EXPECT_NE(config_exit("max_defer_timeout = \"soon\"\n").exit_code, 0);
}

// Go master's topology-aware consumption: flags, config keys, and an unknown
// experiment refused at startup with the valid ones named.
TEST(NsqdOptions, TopologyAndExperiments) {
  const Options plain = parse_ok({});
  EXPECT_FALSE(plain.topology_aware_consumption());
  EXPECT_EQ(plain.topology_zone, "");
  const Options o = parse_ok({"--topology-region=us-east", "-topology-zone", "us-east-1a",
                              "--enable-experiment=topology-aware-consumption"});
  EXPECT_EQ(o.topology_region, "us-east");
  EXPECT_EQ(o.topology_zone, "us-east-1a");
  EXPECT_TRUE(o.topology_aware_consumption());
  const Options c = from_config(
      "topology_region = \"eu\"\ntopology_zone = \"eu-1\"\n"
      "enable_experiment = [\"topology-aware-consumption\"]\n");
  EXPECT_EQ(c.topology_region, "eu");
  EXPECT_EQ(c.topology_zone, "eu-1");
  EXPECT_TRUE(c.topology_aware_consumption());
  const ParseExit e = parse_exit({"--enable-experiment=warp-drive"});
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_EQ(e.text,
            "failed to instantiate nsqd - invalid --enable-experiment \"warp-drive\" (valid "
            "options: 'topology-aware-consumption')");
}

// Drain mode: --sigterm (ours) is clean-shutdown unless told to drain.
TEST(NsqdOptions, Sigterm) {
  EXPECT_FALSE(parse_ok({}).sigterm_drains());
  EXPECT_TRUE(parse_ok({"--sigterm=drain"}).sigterm_drains());
  EXPECT_TRUE(from_config("sigterm = \"drain\"\n").sigterm_drains());
  EXPECT_FALSE(parse_ok({"-sigterm", "clean-shutdown"}).sigterm_drains());
  const ParseExit e = parse_exit({"--sigterm=linger"});
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_EQ(e.text,
            "failed to instantiate nsqd - invalid --sigterm \"linger\" (valid options: "
            "'clean-shutdown', 'drain')");
}

// Dead letters and TTL: what a new topic or channel gets.
TEST(NsqdOptions, DeadLetterDefaults) {
  const Options o = parse_ok(
      {"--default-max-attempts=5", "--default-dead-letter-topic=dlq", "--default-message-ttl=90s"});
  EXPECT_EQ(o.default_max_attempts, 5);
  EXPECT_EQ(o.default_dead_letter_topic, "dlq");
  EXPECT_EQ(o.default_message_ttl, 90s);
  EXPECT_EQ(from_config("default_message_ttl = \"2h\"\n").default_message_ttl, 2h);
  EXPECT_EQ(parse_exit({"--default-max-attempts=70000"}).text,
            "failed to instantiate nsqd - --default-max-attempts must be in 0..65535");
  EXPECT_EQ(parse_exit({"--default-dead-letter-topic=a b"}).text,
            "failed to instantiate nsqd - invalid --default-dead-letter-topic \"a b\"");
  EXPECT_EQ(parse_exit({"--default-message-ttl=-1s"}).text,
            "failed to instantiate nsqd - --default-message-ttl must be in 0..87600h");
}

TEST(NsqdOptions, BoundDefaults) {
  const Options o = parse_ok({"--default-max-depth=1000", "--default-depth-policy=drop_oldest"});
  EXPECT_EQ(o.default_max_depth, 1000);
  EXPECT_EQ(o.default_depth_policy, "drop_oldest");
  EXPECT_EQ(parse_ok({}).default_depth_policy, "reject");
  EXPECT_EQ(parse_exit({"--default-depth-policy=grow"}).text,
            "failed to instantiate nsqd - invalid --default-depth-policy \"grow\" (valid options: "
            "'reject', 'drop_oldest')");
  EXPECT_EQ(parse_exit({"--default-max-depth=-5"}).text,
            "failed to instantiate nsqd - --default-max-depth must be in 0..2^40");
}

TEST(NsqdOptions, DeprecatedFlagsHaveNoEffect) {
  const Options plain = parse_ok({});
  const Options o = parse_ok({"--verbose", "--worker-id"});
  EXPECT_EQ(o.log_level, plain.log_level);
  EXPECT_EQ(o.node_id, plain.node_id);
  // --worker-id is a bool in Go, so a number after it ends the flags.
  EXPECT_EQ(parse_ok({"--worker-id", "7", "--node-id=3"}).node_id, plain.node_id);
}

TEST(NsqdOptions, OursFlags) {
  const Options o = parse_ok({"--sync-publish", "--io-threads=3"});
  EXPECT_TRUE(o.sync_publish);
  EXPECT_EQ(o.io_threads, 3);
  EXPECT_EQ(parse_exit({"--io-threads=-1"}).exit_code, 1);
}

TEST(NsqdOptions, ClusterFlags) {
  const Options d = parse_ok({});
  EXPECT_EQ(d.etcd_endpoints, "");
  EXPECT_EQ(d.cluster_name, "nsq");
  EXPECT_EQ(d.default_replication_factor, 3);
  EXPECT_EQ(d.min_insync_replicas, 2);
  EXPECT_EQ(d.cluster_lease_ttl, std::chrono::seconds(5));
  const Options o = parse_ok({"--etcd-endpoints=http://a:2379,http://b:2379", "-cluster-name",
                              "prod", "--default-replication-factor=1", "--min-insync-replicas",
                              "1", "--cluster-lease-ttl=3s"});
  EXPECT_EQ(o.etcd_endpoints, "http://a:2379,http://b:2379");
  EXPECT_EQ(o.cluster_name, "prod");
  EXPECT_EQ(o.default_replication_factor, 1);
  EXPECT_EQ(o.min_insync_replicas, 1);
  EXPECT_EQ(o.cluster_lease_ttl, std::chrono::seconds(3));
  for (const char* bad : {"--cluster-lease-ttl=1500ms", "--cluster-lease-ttl=0s",
                          "--min-insync-replicas=0", "--default-replication-factor=-1"}) {
    EXPECT_EQ(parse_exit({bad}).exit_code, 1) << bad;
  }
  const Options c = from_config(
      "etcd_endpoints = \"http://127.0.0.1:2379\"\ncluster_name = \"x\"\n"
      "default_replication_factor = 2\nmin_insync_replicas = 2\ncluster_lease_ttl = \"4s\"\n");
  EXPECT_EQ(c.etcd_endpoints, "http://127.0.0.1:2379");
  EXPECT_EQ(c.cluster_name, "x");
  EXPECT_EQ(c.default_replication_factor, 2);
  EXPECT_EQ(c.cluster_lease_ttl, std::chrono::seconds(4));
}

TEST(NsqdOptions, LogLevel) {
  EXPECT_EQ(parse_ok({"--log-level=debug"}).log_level, LogLevel::debug);
  EXPECT_EQ(parse_ok({"--log-level", "WARN"}).log_level, LogLevel::warn);
  EXPECT_EQ(parse_ok({"--log-level=Error"}).log_level, LogLevel::error);
  EXPECT_EQ(parse_ok({"--log-level=fatal"}).log_level, LogLevel::fatal);
  const ParseExit e = parse_exit({"--log-level=loud"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.text.substr(0, e.text.find('\n')),
            "invalid value \"loud\" for flag -log-level: invalid log level 'loud' (debug, info, "
            "warn, error, fatal)");
}

TEST(NsqdOptions, TlsRequiredIsABoolStyleFlag) {
  const std::vector<std::string> cert{"--tls-cert=c.pem", "--tls-key=k.pem"};
  auto with_cert = [&](std::vector<std::string> args) {
    args.insert(args.end(), cert.begin(), cert.end());
    return parse_ok(args);
  };
  EXPECT_EQ(with_cert({"--tls-required"}).tls_required, TlsRequired::yes);
  EXPECT_EQ(with_cert({"--tls-required=true"}).tls_required, TlsRequired::yes);
  EXPECT_EQ(with_cert({"--tls-required=TCP-HTTPS"}).tls_required, TlsRequired::tcp_https);
  EXPECT_EQ(with_cert({"--tls-required=false"}).tls_required, TlsRequired::no);
  const ParseExit e = parse_exit({"--tls-required=maybe"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.text.substr(0, e.text.find('\n')),
            "invalid boolean value \"maybe\" for -tls-required: strconv.ParseBool: parsing "
            "\"maybe\": invalid syntax");
}

TEST(NsqdOptions, TlsRequiredNeedsCertAndKey) {
  const ParseExit e = parse_exit({"--tls-required"});
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_EQ(e.text,
            "failed to instantiate nsqd - cannot require TLS client connections without TLS key "
            "and cert");
  EXPECT_EQ(parse_exit({"--tls-cert=c.pem"}).exit_code, 1);
}

TEST(NsqdOptions, ClientAuthPolicyForcesTlsRequired) {
  EXPECT_EQ(
      parse_ok({"--tls-client-auth-policy=require", "--tls-cert=c", "--tls-key=k"}).tls_required,
      TlsRequired::yes);
  EXPECT_EQ(parse_ok({"--tls-client-auth-policy=require", "--tls-cert=c", "--tls-key=k",
                      "--tls-required=tcp-https"})
                .tls_required,
            TlsRequired::tcp_https);
  EXPECT_EQ(parse_exit({"--tls-client-auth-policy=require-verify"}).exit_code, 1);
}

TEST(NsqdOptions, TlsMinVersion) {
  EXPECT_EQ(parse_ok({"--tls-min-version=tls1.2"}).tls_min_version, TlsVersion::tls1_2);
  EXPECT_EQ(parse_ok({"--tls-min-version=TLS1.3"}).tls_min_version, TlsVersion::tls1_3);
  EXPECT_EQ(parse_ok({"--tls-min-version="}).tls_min_version, TlsVersion::tls1_0);
  const ParseExit e = parse_exit({"--tls-min-version=ssl3.0"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.text.substr(0, e.text.find('\n')),
            "invalid value \"ssl3.0\" for flag -tls-min-version: unknown tlsVersionOption "
            "\"ssl3.0\"");
}

TEST(NsqdOptions, StartupChecks) {
  EXPECT_EQ(parse_exit({"--node-id=1024"}).text,
            "failed to instantiate nsqd - --node-id must be [0,1024)");
  EXPECT_EQ(parse_exit({"--node-id=-1"}).text,
            "failed to instantiate nsqd - --node-id must be [0,1024)");
  EXPECT_EQ(parse_ok({"--node-id=1023"}).node_id, 1023);
  EXPECT_EQ(parse_ok({"--node-id=0"}).node_id, 0);
  EXPECT_EQ(parse_exit({"--max-deflate-level=0"}).text,
            "failed to instantiate nsqd - --max-deflate-level must be [1,9]");
  EXPECT_EQ(parse_exit({"--max-deflate-level=10"}).exit_code, 1);
  EXPECT_EQ(parse_ok({"--max-deflate-level=9"}).max_deflate_level, 9);
  EXPECT_EQ(parse_exit({"--output-buffer-timeout=0"}).text,
            "failed to instantiate nsqd - --output-buffer-timeout must be > 0");
  EXPECT_EQ(parse_exit({"--output-buffer-timeout=-1s"}).exit_code, 1);
}

TEST(NsqdOptions, UnknownFlagAndBadValue) {
  ParseExit e = parse_exit({"--foo"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_TRUE(e.to_stderr);
  EXPECT_EQ(e.text.rfind("flag provided but not defined: -foo\nUsage of nsqd:\n", 0), 0u) << e.text;
  e = parse_exit({"-mem-queue-size", "x"});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_EQ(e.text.substr(0, e.text.find('\n')),
            "invalid value \"x\" for flag -mem-queue-size: parse error");
  e = parse_exit({"--msg-timeout=60"});
  EXPECT_EQ(e.text.substr(0, e.text.find('\n')),
            "invalid value \"60\" for flag -msg-timeout: parse error");
}

TEST(NsqdOptions, Version) {
  const ParseExit e = parse_exit({"--version", "--node-id=5000"});
  EXPECT_EQ(e.exit_code, 0);
  EXPECT_FALSE(e.to_stderr);
  EXPECT_EQ(e.text,
            "nsqd v1.3.0 (built w/gcc 12, commit " + std::string(config::build_commit()) + ")\n");
  EXPECT_EQ(parse_exit({"-version"}).exit_code, 0);
  // An unknown flag still wins, as the whole command line is parsed first.
  EXPECT_EQ(parse_exit({"--version", "--foo"}).exit_code, 2);
  EXPECT_EQ(config::version_string("nsqd", "x"), "nsqd v1.3.0 (built w/x)");
  EXPECT_NE(config::current_parse_env().compiler, "");
}

TEST(NsqdOptions, HelpListsEveryFlag) {
  for (const char* h : {"--help", "-h", "-help"}) {
    const ParseExit e = parse_exit({h});
    EXPECT_EQ(e.exit_code, 0);
    EXPECT_EQ(e.text.rfind("Usage of nsqd:\n", 0), 0u);
  }
  const std::string usage = parse_exit({"--help"}).text;
  for (const char* flag : {"auth-http-address value",
                           "broadcast-address string",
                           "broadcast-http-port int",
                           "broadcast-tcp-port int",
                           "config string",
                           "data-path string",
                           "deflate\n",
                           "e2e-processing-latency-percentile value",
                           "e2e-processing-latency-window-time duration",
                           "http-address string",
                           "http-client-connect-timeout duration",
                           "http-client-request-timeout duration",
                           "https-address string",
                           "io-threads int",
                           "log-level value",
                           "log-prefix string",
                           "lookupd-tcp-address value",
                           "max-body-size int",
                           "max-bytes-per-file int",
                           "max-channel-consumers int",
                           "max-deflate-level int",
                           "max-heartbeat-interval duration",
                           "max-msg-size int",
                           "max-msg-timeout duration",
                           "max-output-buffer-size int",
                           "max-output-buffer-timeout duration",
                           "max-rdy-count int",
                           "max-req-timeout duration",
                           "mem-queue-size int",
                           "min-output-buffer-timeout duration",
                           "msg-timeout duration",
                           "node-id int",
                           "output-buffer-timeout duration",
                           "queue-scan-selection-count int",
                           "queue-scan-worker-pool-max int",
                           "snappy\n",
                           "statsd-address string",
                           "statsd-exclude-ephemeral\n",
                           "statsd-interval duration",
                           "statsd-mem-stats\n",
                           "statsd-prefix string",
                           "statsd-udp-packet-size int",
                           "sync-every int",
                           "sync-publish\n",
                           "sync-timeout duration",
                           "tcp-address string",
                           "tls-cert string",
                           "tls-client-auth-policy string",
                           "tls-key string",
                           "tls-min-version value",
                           "tls-required\n",
                           "tls-root-ca-file string",
                           "verbose\n",
                           "version\n",
                           "worker-id\n"}) {
    EXPECT_NE(usage.find(std::string("  -") + flag), std::string::npos) << flag;
  }
  // Defaults are printed the Go way.
  for (const char* text :
       {"(default 1m0s)", "(default 250ms)", "(default 25ms)", "(default 1h0m0s)",
        "(default 15m0s)", "(default 10m0s)", "(default 2s)", "(default \"0.0.0.0:4150\")",
        "(default \"[nsqd] \")", "(default \"nsq.%s\")", "(default \"testhost\")", "(default INFO)",
        "(default 769)", "(default 10000)"}) {
    EXPECT_NE(usage.find(text), std::string::npos) << text;
  }
  EXPECT_NE(usage.find("  -node-id int\n    \tunique part for message IDs, (int) in range "
                       "[0,1024) (default is hash of hostname) (default " +
                       std::to_string(nsq::default_node_id("testhost")) + ")\n"),
            std::string::npos);
}

// --- config file ---

TEST(NsqdConfig, SpecExample) {
  const Options o = from_config(R"(
log_level = "info"
id = 515
tcp_address = "0.0.0.0:4150"
http_address = "0.0.0.0:4151"
nsqlookupd_tcp_addresses = ["127.0.0.1:4160"]
data_path = "/var/lib/nsq"
mem_queue_size = 10000
sync_timeout = "2s"
msg_timeout = "60s"
e2e_processing_latency_percentiles = [1.0, 0.99, 0.95]
tls_required = "tcp-https"
tls_cert = "c.pem"
tls_key = "k.pem"
)");
  EXPECT_EQ(o.node_id, 515);
  EXPECT_EQ(o.lookupd_tcp_addresses, std::vector<std::string>{"127.0.0.1:4160"});
  EXPECT_EQ(o.data_path, "/var/lib/nsq");
  EXPECT_EQ(o.msg_timeout, 60s);
  EXPECT_EQ(o.e2e_processing_latency_percentiles, (std::vector<double>{1.0, 0.99, 0.95}));
  EXPECT_EQ(o.tls_required, TlsRequired::tcp_https);
}

TEST(NsqdConfig, DurationsAsStringsOrMilliseconds) {
  const Options o = from_config(
      "msg_timeout = \"1m30s\"\nsync_timeout = 1500\n"
      "output_buffer_timeout = \"100ms\"\n");
  EXPECT_EQ(o.msg_timeout, 90s);
  EXPECT_EQ(o.sync_timeout, 1500ms);
  EXPECT_EQ(o.output_buffer_timeout, 100ms);
}

TEST(NsqdConfig, ListsAsArraysOrCommaStrings) {
  const Options o = from_config(
      "nsqlookupd_tcp_addresses = \"a:4160,b:4160\"\n"
      "auth_http_addresses = [\"x:1\", \"y:2\"]\n"
      "e2e_processing_latency_percentiles = \"0.5, 0.99\"\n");
  EXPECT_EQ(o.lookupd_tcp_addresses, (std::vector<std::string>{"a:4160", "b:4160"}));
  EXPECT_EQ(o.auth_http_addresses, (std::vector<std::string>{"x:1", "y:2"}));
  // Go keeps the file's order (only the flag sorts).
  EXPECT_EQ(o.e2e_processing_latency_percentiles, (std::vector<double>{0.5, 0.99}));
  EXPECT_EQ(from_config("e2e_processing_latency_percentiles = [1, 0.5]\n")
                .e2e_processing_latency_percentiles,
            (std::vector<double>{1.0, 0.5}));
}

TEST(NsqdConfig, IntsAndBoolsFromStrings) {
  const Options o = from_config(
      "mem_queue_size = \"42\"\nid = \"7\"\nmax_deflate_level = 3\n"
      "snappy = \"false\"\ndeflate = false\nstatsd_exclude_ephemeral = \"T\"\n"
      "statsd_mem_stats = 0\nsync_publish = true\nio_threads = \"2\"\n");
  EXPECT_EQ(o.mem_queue_size, 42);
  EXPECT_EQ(o.node_id, 7);
  EXPECT_EQ(o.max_deflate_level, 3);
  EXPECT_FALSE(o.snappy);
  EXPECT_FALSE(o.deflate);
  EXPECT_TRUE(o.statsd_exclude_ephemeral);
  EXPECT_FALSE(o.statsd_mem_stats);
  EXPECT_TRUE(o.sync_publish);
  EXPECT_EQ(o.io_threads, 2);
}

TEST(NsqdConfig, TlsAndLogLevelKeys) {
  EXPECT_EQ(from_config("tls_required = true\ntls_cert = \"c\"\ntls_key = \"k\"\n").tls_required,
            TlsRequired::yes);
  EXPECT_EQ(from_config("tls_required = false\n").tls_required, TlsRequired::no);
  EXPECT_EQ(from_config("tls_min_version = \"tls1.2\"\n").tls_min_version, TlsVersion::tls1_2);
  EXPECT_EQ(from_config("tls_min_version = \"\"\n").tls_min_version, TlsVersion::tls1_0);
  EXPECT_EQ(from_config("log_level = \"DEBUG\"\n").log_level, LogLevel::debug);
  EXPECT_EQ(from_config("log_prefix = \"[x] \"\n").log_prefix, "[x] ");
}

TEST(NsqdConfig, UnknownKeysAndTablesAreIgnored) {
  const Options o = from_config("bogus = 1\nverbose = true\nnode_id = 9\n[section]\nid = 3\n");
  EXPECT_EQ(o.node_id, nsq::default_node_id("testhost"));  // `node_id` is not the key: `id` is
}

TEST(NsqdConfig, PrecedenceFlagThenConfigThenDefault) {
  const Options o = from_config(
      "mem_queue_size = 1\nmax_rdy_count = 2\nnsqlookupd_tcp_addresses = [\"cfg:1\", \"cfg:2\"]\n"
      "snappy = false\n",
      {"--mem-queue-size=100", "--lookupd-tcp-address=flag:1", "--snappy"});
  EXPECT_EQ(o.mem_queue_size, 100);                                        // flag
  EXPECT_EQ(o.max_rdy_count, 2);                                           // config
  EXPECT_EQ(o.max_body_size, 5242880);                                     // default
  EXPECT_EQ(o.lookupd_tcp_addresses, std::vector<std::string>{"flag:1"});  // replaced, not merged
  EXPECT_TRUE(o.snappy);
  // A flag explicitly set to the default value still beats the config.
  EXPECT_EQ(from_config("mem_queue_size = 1\n", {"--mem-queue-size=10000"}).mem_queue_size, 10000);
}

TEST(NsqdConfig, ConfigFlagMayComeAnywhere) {
  ConfigFile cfg("max_rdy_count = 3\n");
  EXPECT_EQ(parse_ok({"--snappy", "-config", cfg.path()}).max_rdy_count, 3);
}

TEST(NsqdConfig, Errors) {
  ParseExit e = parse_exit({"--config=/nonexistent/nsqd.cfg"});
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_EQ(e.text.rfind("failed to load config file /nonexistent/nsqd.cfg - ", 0), 0u) << e.text;

  e = config_exit("this is not toml\n");
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_NE(e.text.find("failed to load config file"), std::string::npos);

  e = config_exit("mem_queue_size = \"lots\"\n");
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_EQ(e.text,
            "option resolution failed to coerce lots for mem_queue_size - strconv.ParseInt: "
            "parsing \"lots\": invalid syntax");

  e = config_exit("msg_timeout = \"60\"\n");
  EXPECT_EQ(e.text,
            "option resolution failed to coerce 60 for msg_timeout - time: missing unit in "
            "duration \"60\"");

  e = config_exit("msg_timeout = 1.5\n");
  EXPECT_EQ(e.text, "option resolution failed to coerce 1.5 for msg_timeout - invalid value type");

  e = config_exit("snappy = \"yes\"\n");
  EXPECT_EQ(e.exit_code, 1);

  EXPECT_EQ(config_exit("tls_required = \"sometimes\"\n").text,
            "failed parsing tls_required sometimes");
  EXPECT_EQ(config_exit("tls_min_version = \"ssl3.0\"\n").text,
            "failed parsing tls_min_version ssl3.0");
  EXPECT_EQ(config_exit("log_level = \"loud\"\n").text, "failed parsing log_level loud");

  EXPECT_EQ(config_exit("e2e_processing_latency_percentiles = [0.5, 2.0]\n").text,
            "failed to instantiate nsqd - invalid E2E processing latency percentile: 2");
  EXPECT_EQ(config_exit("id = 4096\n").text,
            "failed to instantiate nsqd - --node-id must be [0,1024)");
}

TEST(NsqdConfig, SpecialKeysAreCheckedEvenWhenAFlagOverrides) {
  ConfigFile cfg("log_level = \"loud\"\n");
  const ParseExit e = parse_exit({cfg.flag(), "--log-level=debug"});
  EXPECT_EQ(e.text, "failed parsing log_level loud");
}

TEST(NsqdOptions, CommandLineArgsWithTheRealEnv) {
  const char* argv[] = {"nsqd", "--mem-queue-size=9", "--broadcast-address=h"};
  auto r = parse_nsqd_options(config::command_line_args(3, argv));
  ASSERT_TRUE(r.has_value()) << r.error().text;
  EXPECT_EQ(r->mem_queue_size, 9);
  EXPECT_EQ(r->broadcast_address, "h");
}

}  // namespace
}  // namespace nsq::nsqd
