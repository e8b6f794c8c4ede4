// nsqadmin's flags: Go's names, defaults and New() checks.
#include "options.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>

#include <fstream>
#include <string>
#include <vector>

#include "testutil/temp_dir.h"

namespace nsq::admin {
namespace {

tl::expected<void, flags::FlagError> parse(Options* o, std::vector<std::string> args) {
  flags::FlagSet fs("nsqadmin");
  add_flags(fs, o);
  return fs.parse(args);
}

TEST(NsqadminOptions, GoDefaults) {
  Options o;
  ASSERT_TRUE(parse(&o, {}));
  EXPECT_EQ(o.http_address, "0.0.0.0:4171");
  EXPECT_EQ(o.base_path, "/");
  EXPECT_EQ(o.acl_http_header, "X-Forwarded-User");
  EXPECT_EQ(o.log_prefix, "[nsqadmin] ");
  EXPECT_EQ(o.statsd_prefix, "nsq.%s");
  EXPECT_EQ(o.statsd_counter_format, "stats.counters.%s.count");
  EXPECT_EQ(o.statsd_gauge_format, "stats.gauges.%s");
  EXPECT_EQ(o.statsd_interval, std::chrono::seconds(60));
  EXPECT_EQ(o.http_client_connect_timeout, std::chrono::seconds(2));
  EXPECT_EQ(o.http_client_request_timeout, std::chrono::seconds(5));
  EXPECT_TRUE(o.admin_users.empty());
  EXPECT_TRUE(o.graphite_url.empty());
  EXPECT_TRUE(o.notification_http_endpoint.empty());
}

TEST(NsqadminOptions, RepeatableAndGoStyleFlags) {
  Options o;
  ASSERT_TRUE(parse(&o, {"-lookupd-http-address", "127.0.0.1:4161", "--lookupd-http-address=h:4161",
                         "--admin-user=alice", "--admin-user", "bob", "--base-path=/admin/",
                         "--graphite-url=http://graphite:8080", "--acl-http-header=X-User",
                         "--notification-http-endpoint=http://hook:80/x", "--log-level=debug",
                         "--http-client-connect-timeout=1s"}));
  EXPECT_EQ(o.lookupd_http_addresses, (std::vector<std::string>{"127.0.0.1:4161", "h:4161"}));
  EXPECT_EQ(o.admin_users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(o.base_path, "/admin/");
  EXPECT_EQ(o.graphite_url, "http://graphite:8080");
  EXPECT_EQ(o.acl_http_header, "X-User");
  EXPECT_EQ(o.notification_http_endpoint, "http://hook:80/x");
  EXPECT_EQ(o.log_level, GoLogLevel::debug);
  EXPECT_EQ(o.http_client_connect_timeout, std::chrono::seconds(1));
  EXPECT_EQ(validation_error(o), std::nullopt);
}

TEST(NsqadminOptions, BadLogLevelIsAFlagError) {
  Options o;
  auto r = parse(&o, {"--log-level=loud"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("invalid log level 'loud'"), std::string::npos)
      << r.error().message;
}

TEST(NsqadminOptions, GoValidationTexts) {
  Options none;
  EXPECT_EQ(validation_error(none), "--nsqd-http-address or --lookupd-http-address required");

  Options both;
  both.lookupd_http_addresses = {"127.0.0.1:4161"};
  both.nsqd_http_addresses = {"127.0.0.1:4151"};
  EXPECT_EQ(validation_error(both), "use --nsqd-http-address or --lookupd-http-address not both");

  Options no_port;
  no_port.lookupd_http_addresses = {"127.0.0.1"};
  EXPECT_EQ(validation_error(no_port),
            "failed to resolve --lookupd-http-address (127.0.0.1) - address 127.0.0.1: missing "
            "port in address");

  Options nsqd_only;
  nsqd_only.nsqd_http_addresses = {"127.0.0.1:4151"};
  EXPECT_EQ(validation_error(nsqd_only), std::nullopt);
}

// nsq-cpp's history flags: an hour at 10 s by default, 0 turns it off.
TEST(NsqadminOptions, HistoryFlags) {
  Options o;
  ASSERT_TRUE(parse(&o, {}));
  EXPECT_EQ(o.history_duration, std::chrono::hours(1));
  EXPECT_EQ(o.history_interval, std::chrono::seconds(10));
  EXPECT_EQ(o.history_max_series, 2000);
  ASSERT_TRUE(parse(&o, {"--nsqd-http-address=127.0.0.1:4151", "--history-duration=30m",
                         "--history-interval=2s", "--history-max-series=50"}));
  EXPECT_EQ(o.history_duration, std::chrono::minutes(30));
  EXPECT_EQ(o.history_interval, std::chrono::seconds(2));
  EXPECT_EQ(o.history_max_series, 50);
  EXPECT_EQ(validation_error(o), std::nullopt);

  Options bad = o;
  bad.history_interval = std::chrono::milliseconds(10);
  EXPECT_EQ(validation_error(bad), "--history-interval should be at least 100ms");
  bad = o;
  bad.history_interval = std::chrono::hours(2);
  EXPECT_EQ(validation_error(bad), "--history-interval should not exceed --history-duration");
  bad = o;
  bad.history_max_series = 0;
  EXPECT_EQ(validation_error(bad), "--history-max-series should be positive");
  bad = o;
  bad.history_duration = std::chrono::nanoseconds(-1);
  EXPECT_EQ(validation_error(bad), "--history-duration should not be negative");
  // Off: the other two are not checked.
  bad.history_duration = std::chrono::nanoseconds(0);
  bad.history_max_series = 0;
  EXPECT_EQ(validation_error(bad), std::nullopt);
}

// --config: Go's keys (with the cfg tags of the repeatable flags); a flag
// given on the command line wins over the file.
TEST(NsqadminOptions, ConfigFileKeysAndFlagPrecedence) {
  testutil::TempDir dir;
  const std::string path = (dir.path() / "nsqadmin.cfg").string();
  std::ofstream(path) << "http_address = \"127.0.0.1:4999\"\n"
                         "nsqlookupd_http_addresses = [\"10.0.0.1:4161\", \"10.0.0.2:4161\"]\n"
                         "admin_users = [\"ops\"]\n"
                         "base_path = \"/from-file\"\n"
                         "http_client_request_timeout = \"9s\"\n";
  Options parsed;
  flags::FlagSet fs("nsqadmin");
  add_flags(fs, &parsed);
  ASSERT_TRUE(fs.parse(std::vector<std::string>{"--config", path, "--base-path=/flag"}));
  auto o = resolve_config(fs, parsed);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->http_address, "127.0.0.1:4999");
  EXPECT_EQ(o->lookupd_http_addresses,
            (std::vector<std::string>{"10.0.0.1:4161", "10.0.0.2:4161"}));
  EXPECT_EQ(o->admin_users, (std::vector<std::string>{"ops"}));
  EXPECT_EQ(o->base_path, "/flag");
  EXPECT_EQ(o->http_client_request_timeout, std::chrono::seconds(9));
  EXPECT_EQ(o->acl_http_header, "X-Forwarded-User") << "default kept";

  Options missing;
  missing.config = (dir.path() / "nope.cfg").string();
  flags::FlagSet fs2("nsqadmin");
  auto err = resolve_config(fs2, missing);
  ASSERT_FALSE(err);
  EXPECT_EQ(err.error().rfind("failed to load config file " + missing.config + " - ", 0), 0u)
      << err.error();
}

TEST(NsqadminOptions, BasePathNormalized) {
  EXPECT_EQ(normalize_base_path(""), "/");
  EXPECT_EQ(normalize_base_path("/"), "/");
  EXPECT_EQ(normalize_base_path("admin"), "/admin");
  EXPECT_EQ(normalize_base_path("/admin/"), "/admin");
  EXPECT_EQ(normalize_base_path("//a//b/"), "/a/b");
}

// A self-signed P-256 certificate and its key, as PEM files in dir.
void write_self_signed(const std::string& cert_path, const std::string& key_path) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  ASSERT_NE(key, nullptr);
  X509* cert = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("nsqadmin-test"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  ASSERT_GT(X509_sign(cert, key, EVP_sha256()), 0);
  FILE* c = std::fopen(cert_path.c_str(), "w");
  PEM_write_X509(c, cert);
  std::fclose(c);
  FILE* k = std::fopen(key_path.c_str(), "w");
  PEM_write_PrivateKey(k, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(k);
  X509_free(cert);
  EVP_PKEY_free(key);
}

TEST(NsqadminOptions, AllowConfigFromCidrCheckedAtStartup) {
  Options o;
  o.nsqd_http_addresses = {"127.0.0.1:4151"};
  o.allow_config_from_cidr = "10.0.0.0/33";
  EXPECT_EQ(validation_error(o),
            "failed to parse --allow-config-from-cidr (10.0.0.0/33) - invalid CIDR address: "
            "10.0.0.0/33");
  o.allow_config_from_cidr = "";
  EXPECT_EQ(validation_error(o), std::nullopt);
  o.allow_config_from_cidr = "::1/128";
  EXPECT_EQ(validation_error(o), std::nullopt);
}

TEST(NsqadminOptions, HttpClientTlsFilesCheckedAsGoDoes) {
  testutil::TempDir tmp;
  const std::string dir_path = tmp.path().string();
  const std::string cert = dir_path + "/client.pem";
  const std::string key = dir_path + "/client.key";
  write_self_signed(cert, key);
  Options o;
  ASSERT_TRUE(parse(&o, {"--nsqd-http-address=127.0.0.1:4151", "--http-client-tls-cert=" + cert,
                         "--http-client-tls-key=" + key, "--http-client-tls-root-ca-file=" + cert,
                         "--http-client-tls-insecure-skip-verify"}));
  EXPECT_TRUE(o.http_client_tls_insecure_skip_verify);
  EXPECT_EQ(validation_error(o), std::nullopt);

  Options missing = o;
  missing.http_client_tls_key = dir_path + "/nope.key";
  auto e = validation_error(missing);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rfind("failed to LoadX509KeyPair " + cert + ", " + dir_path + "/nope.key - ", 0), 0u)
      << *e;

  Options no_ca = o;
  no_ca.http_client_tls_root_ca_file = dir_path + "/nope.pem";
  EXPECT_EQ(validation_error(no_ca), "failed to read TLS root CA file " + dir_path +
                                         "/nope.pem - open " + dir_path +
                                         "/nope.pem: No such file or directory");
  Options bad_ca = o;
  bad_ca.http_client_tls_root_ca_file = key;  // a key, no certificate in it
  EXPECT_EQ(validation_error(bad_ca), "failed to AppendCertsFromPEM " + key);

  // Go only loads the pair when both are given.
  Options cert_only = o;
  cert_only.http_client_tls_key.clear();
  cert_only.http_client_tls_cert = dir_path + "/nope.pem";
  EXPECT_EQ(validation_error(cert_only), std::nullopt);
}

}  // namespace
}  // namespace nsq::admin
