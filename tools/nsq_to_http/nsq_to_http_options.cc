#include "nsq_to_http_options.h"

#include "common/client_option_flags.h"
#include "common/flag_exit.h"
#include "common/go_log.h"
#include "common/version.h"
#include "custom_headers.h"
#include "nsq/flags/go_flags.h"
#include "nsq/flags/go_strconv.h"

namespace nsq::tools::to_http {
namespace {

// Go's flag.Float64.
void add_float(flags::FlagSet& fs, const std::string& name, double* target,
               const std::string& default_text, const std::string& usage) {
  flags::FlagValue value;
  value.type_name = "float";
  value.default_text = default_text;
  value.set = [target](std::string_view text) -> tl::expected<void, std::string> {
    auto parsed = flags::parse_go_float(text);
    if (!parsed) return tl::unexpected(std::string(flags::describe(parsed.error())));
    *target = *parsed;
    return {};
  };
  fs.add(name, usage, std::move(value));
}

std::size_t count_of(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

NsqToHttpOptions parse_nsq_to_http_options(int argc, const char* const* argv) {
  NsqToHttpOptions o;
  bool show_version = false;
  std::string mode = "hostpool";
  std::vector<std::string> get_addresses;
  std::vector<std::string> post_addresses;
  std::vector<std::string> header_values;
  const std::string default_content_type = o.content_type;

  flags::FlagSet fs(argc > 0 ? argv[0] : "nsq_to_http");
  add_version_flag(fs, &show_version);
  fs.add_string("topic", &o.topic, "nsq topic");
  fs.add_string("channel", &o.channel, "nsq channel");
  fs.add_int("max-in-flight", &o.max_in_flight, "max number of messages to allow in flight");
  fs.add_int("n", &o.handlers, "number of concurrent publishers");
  fs.add_string("mode", &mode,
                "the upstream request mode options: round-robin, hostpool (default), "
                "epsilon-greedy");
  add_float(fs, "sample", &o.sample, "1", "% of messages to publish (float b/w 0 -> 1)");
  fs.add_duration("http-client-connect-timeout", &o.connect_timeout, "timeout for HTTP connect");
  fs.add_duration("http-client-request-timeout", &o.request_timeout, "timeout for HTTP request");
  fs.add_int("status-every", &o.status_every,
             "the # of requests between logging status (per handler), 0 disables");
  fs.add_string("content-type", &o.content_type, "the Content-Type used for POST requests");
  fs.add_string_list("post", &post_addresses,
                     "HTTP address to make a POST request to.  data will be in the body (may be "
                     "given multiple times)");
  fs.add_string_list("get", &get_addresses,
                     "HTTP address to make a GET request to. '%s' will be printf replaced with "
                     "data (may be given multiple times)");
  fs.add_string_list("header", &header_values,
                     "Custom header for HTTP requests (may be given multiple times)");
  add_source_flags(fs, &o.sources);
  add_client_option_flag(fs, "consumer-opt", &o.config, kConsumerOptUsage);
  parse_flags_or_exit(fs, argc, argv);

  exit_if_version(show_version, "nsq_to_http");
  if (o.topic.empty() || o.channel.empty()) log_fatal("--topic and --channel are required");
  if (o.content_type != default_content_type) {
    if (post_addresses.empty()) log_fatal("--content-type only used with --post");
    if (o.content_type.empty()) log_fatal("--content-type requires a value when used");
  }
  require_one_source_or_exit(o.sources);
  if (get_addresses.empty() && post_addresses.empty()) log_fatal("--get or --post required");
  if (!get_addresses.empty() && !post_addresses.empty()) log_fatal("use --get or --post not both");
  for (const auto& get : get_addresses) {
    if (count_of(get, "%s") != 1) log_fatal("invalid GET address - must be a printf string");
  }
  if (mode == "round-robin") {
    o.mode = DeliveryMode::round_robin;
  } else if (mode == "hostpool" || mode == "epsilon-greedy") {
    o.mode = DeliveryMode::host_pool;
  } else {
    o.mode = DeliveryMode::all;
  }
  if (o.sample > 1.0 || o.sample < 0.0) log_fatal("ERROR: --sample must be between 0.0 and 1.0");
  auto headers = parse_custom_headers(header_values);
  if (!headers) log_fatal("could not parse custom headers: " + headers.error());
  o.custom_headers = std::move(*headers);

  o.post = !post_addresses.empty();
  o.addresses = o.post ? std::move(post_addresses) : std::move(get_addresses);
  o.config.user_agent = user_agent("nsq_to_http");
  o.config.max_in_flight = o.max_in_flight;
  return o;
}

}  // namespace nsq::tools::to_http
