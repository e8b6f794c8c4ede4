#include "options.h"

#include <algorithm>
#include <cctype>

#include "common/client_option_flags.h"
#include "common/flag_exit.h"
#include "common/go_log.h"
#include "common/version.h"
#include "filename_format.h"
#include "nsq/flags/go_strconv.h"

namespace nsq::to_file {

void add_flags(flags::FlagSet& fs, Options* o) {
  fs.add_bool("version", &o->show_version, "print version string");
  fs.add_string("log-level", &o->log_level,
                "set log verbosity: debug, info, warn, error, or fatal");
  fs.add_string("log-prefix", &o->log_prefix, "log message prefix");

  fs.add_string("channel", &o->channel, "nsq channel");
  fs.add_int("max-in-flight", &o->max_in_flight, "max number of messages to allow in flight");

  fs.add_string("output-dir", &o->output_dir, "directory to write output files to");
  fs.add_string("work-dir", &o->work_dir,
                "directory for in-progress files before moving to output-dir");
  fs.add_string("datetime-format", &o->datetime_format,
                "strftime compatible format for <DATETIME> in filename format");
  fs.add_string("filename-format", &o->filename_format,
                "output filename format (<TOPIC>, <HOST>, <PID>, <DATETIME>, <REV> are replaced. "
                "<REV> is increased when file already exists)");
  fs.add_string("host-identifier", &o->host_identifier,
                "value to output in log filename in place of hostname. <SHORT_HOST> and "
                "<HOSTNAME> are valid replacement tokens");
  fs.add_int("gzip-level", &o->gzip_level,
             "gzip compression level (1-9, 1=BestSpeed, 9=BestCompression)");
  fs.add_bool("gzip", &o->gzip, "gzip output files.");
  fs.add_bool("skip-empty-files", &o->skip_empty_files, "skip writing empty files");
  fs.add_duration("topic-refresh", &o->topic_refresh,
                  "how frequently the topic list should be refreshed");
  fs.add_string("topic-pattern", &o->topic_pattern,
                "only log topics matching the following pattern");

  // Go's usage quotes `rotate-size`, which makes it the shown type name.
  flags::FlagValue rotate_size;
  rotate_size.type_name = "rotate-size";
  rotate_size.set = [o](std::string_view text) -> tl::expected<void, std::string> {
    auto n = flags::parse_go_int(text, 0);
    if (!n) return tl::unexpected(std::string(flags::describe(n.error())));
    o->rotate_size = *n;
    return {};
  };
  fs.add("rotate-size", "rotate the file when it grows bigger than rotate-size bytes",
         std::move(rotate_size));
  fs.add_duration("rotate-interval", &o->rotate_interval, "rotate the file every duration");
  fs.add_duration("sync-interval", &o->sync_interval, "sync file to disk every duration");

  fs.add_duration("http-client-connect-timeout", &o->http_connect_timeout,
                  "timeout for HTTP connect");
  fs.add_duration("http-client-request-timeout", &o->http_request_timeout,
                  "timeout for HTTP request");

  tools::add_source_flags(fs, &o->sources);
  fs.add_string_list("topic", &o->topics, "nsq topic (may be given multiple times)");
  tools::add_client_option_flag(fs, "consumer-opt", &o->consumer_config, tools::kConsumerOptUsage);
}

std::optional<GoLogLevel> parse_log_level(std::string_view word) {
  std::string lower(word);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "debug") return GoLogLevel::debug;
  if (lower == "info") return GoLogLevel::info;
  if (lower == "warn") return GoLogLevel::warn;
  if (lower == "error") return GoLogLevel::error;
  if (lower == "fatal") return GoLogLevel::fatal;
  return std::nullopt;
}

std::optional<std::string> pre_version_error(const Options& o,
                                             const std::vector<std::string>& args) {
  if (!args.empty()) {
    // Go's %s of a []string: "[a b]".
    std::string list = "[";
    for (std::size_t i = 0; i < args.size(); ++i) list += (i ? " " : "") + args[i];
    return "unknown arguments: " + list + "]";
  }
  if (!parse_log_level(o.log_level)) return "--log-level is invalid";
  return std::nullopt;
}

std::optional<std::string> validation_error(const Options& o) {
  if (o.channel.empty()) return "--channel is required";
  if (o.http_connect_timeout.count() <= 0) {
    return "--http-client-connect-timeout should be positive";
  }
  if (o.http_request_timeout.count() <= 0) {
    return "--http-client-request-timeout should be positive";
  }
  if (o.sources.nsqd_tcp.empty() && o.sources.lookupd_http.empty()) {
    return "--nsqd-tcp-address or --lookupd-http-address required.";
  }
  if (!o.sources.nsqd_tcp.empty() && !o.sources.lookupd_http.empty()) {
    return "use --nsqd-tcp-address or --lookupd-http-address not both";
  }
  if (o.gzip_level < 1 || o.gzip_level > 9) {
    return "invalid --gzip-level value (" + std::to_string(o.gzip_level) + "), should be 1-9";
  }
  if (o.topics.empty() && o.topic_pattern.empty()) return "--topic or --topic-pattern required";
  if (o.topics.empty() && o.sources.lookupd_http.empty()) {
    return "--lookupd-http-address must be specified when no --topic specified";
  }
  if (o.sync_interval.count() <= 0) return "--sync-interval should be positive";
  FilenameSettings names;
  names.filename_format = o.filename_format;
  names.gzip = o.gzip;
  names.rotate_size = o.rotate_size;
  names.rotate_interval = o.rotate_interval;
  names.distinct_work_dir = !o.work_dir.empty() && o.work_dir != o.output_dir;
  if (revision_required(names) && o.filename_format.find("<REV>") == std::string::npos) {
    return std::string(kMissingRevError);
  }
  return std::nullopt;
}

void resolve_defaults(Options* o) {
  if (o->work_dir.empty()) o->work_dir = o->output_dir;
}

Options parse_options(int argc, const char* const* argv) {
  Options o;
  // Go's nsq_to_file names its FlagSet "nsqd", hence "Usage of nsqd:".
  flags::FlagSet fs("nsqd");
  add_flags(fs, &o);
  tools::parse_flags_or_exit(fs, argc, argv);
  if (auto error = pre_version_error(o, fs.args())) tools::log_fatal(*error);
  tools::exit_if_version(o.show_version, "nsq_to_file");
  if (auto error = validation_error(o)) tools::log_fatal(*error);
  resolve_defaults(&o);
  o.consumer_config.user_agent = tools::user_agent("nsq_to_file");
  o.consumer_config.max_in_flight = o.max_in_flight;
  return o;
}

}  // namespace nsq::to_file
