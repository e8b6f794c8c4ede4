#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/source_flags.h"
#include "nsq/client/config.h"
#include "nsq/flags/go_flags.h"
#include "nsq/go_logger.h"

// nsq_to_file's command line (spec/tools.md §2), with Go's defaults.
namespace nsq::to_file {

struct Options {
  bool show_version = false;
  std::string log_level = "info";  // debug, info, warn, error, fatal
  std::string log_prefix = "[nsq_to_file] ";

  std::vector<std::string> topics;  // none: discovered from lookupd /topics
  std::string topic_pattern;        // regex search; "" = every topic
  std::chrono::nanoseconds topic_refresh = std::chrono::minutes(1);
  std::string channel = "nsq_to_file";
  tools::SourceAddresses sources;
  client::Config consumer_config;  // --consumer-opt applied while parsing
  int max_in_flight = 200;         // also the unsynced batch limit

  std::string output_dir = "/tmp";
  std::string work_dir;  // "" = output_dir
  std::string datetime_format = "%Y-%m-%d_%H";
  std::string filename_format = "<TOPIC>.<HOST><REV>.<DATETIME>.log";
  std::string host_identifier;
  bool gzip = false;
  int gzip_level = 6;
  bool skip_empty_files = false;
  int64_t rotate_size = 0;
  std::chrono::nanoseconds rotate_interval{0};
  std::chrono::nanoseconds sync_interval = std::chrono::seconds(30);

  std::chrono::nanoseconds http_connect_timeout = std::chrono::seconds(2);
  std::chrono::nanoseconds http_request_timeout = std::chrono::seconds(5);
};

// Registers every flag of Go's nsq_to_file on fs, storing into *options
// (which must outlive fs.parse()).
void add_flags(flags::FlagSet& fs, Options* options);

// Go's lg.ParseLogLevel (any case); nullopt for an unknown word.
std::optional<GoLogLevel> parse_log_level(std::string_view word);

// Go's checks after parsing that come before --version: leftover arguments
// ("unknown arguments: [a b]"), then "--log-level is invalid".
std::optional<std::string> pre_version_error(const Options& options,
                                             const std::vector<std::string>& args);

// The remaining checks, in Go's order (log.Fatal texts), plus ours: a
// missing <REV> where one is needed (Go only logs that per topic and then
// idles) and a non-positive --sync-interval (Go's ticker panics).
std::optional<std::string> validation_error(const Options& options);

// --work-dir defaults to --output-dir.
void resolve_defaults(Options* options);

// The whole command line as Go's nsq_to_file reads it: flags (-h and bad
// flags exit as Go's flag package does), pre_version_error, --version,
// validation_error (each error is log.Fatal), resolve_defaults, and the
// consumer's user agent and max-in-flight.
Options parse_options(int argc, const char* const* argv);

}  // namespace nsq::to_file
