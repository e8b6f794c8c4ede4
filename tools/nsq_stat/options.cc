#include "options.h"

#include <cstdint>
#include <limits>

#include "nsq/flags/go_strconv.h"

namespace nsq::stat {
namespace {

// Go's nsq_stat reads --count with strconv.ParseInt(s, 10, 32) and returns
// its error as is, so the flag error is e.g.
// `strconv.ParseInt: parsing "x": invalid syntax`.
flags::FlagValue count_value(std::optional<int>* count) {
  flags::FlagValue value;
  value.type_name = "value";
  value.set = [count](std::string_view text) -> tl::expected<void, std::string> {
    auto fail = [&](std::string_view why) {
      return tl::unexpected("strconv.ParseInt: parsing " + flags::go_quote(text) + ": " +
                            std::string(why));
    };
    auto n = flags::parse_go_int(text, 10);
    if (!n)
      return fail(n.error() == flags::NumError::range ? "value out of range" : "invalid syntax");
    if (*n < std::numeric_limits<int32_t>::min() || *n > std::numeric_limits<int32_t>::max()) {
      return fail("value out of range");
    }
    *count = static_cast<int>(*n);
    return {};
  };
  return value;
}

bool has_scheme(const std::vector<std::string>& addresses) {
  for (const auto& a : addresses) {
    if (a.rfind("http", 0) == 0) return true;
  }
  return false;
}

}  // namespace

void add_flags(flags::FlagSet& fs, Options* o) {
  fs.add_bool("version", &o->show_version, "print version");
  fs.add_string("topic", &o->topic, "NSQ topic");
  fs.add_string("channel", &o->channel, "NSQ channel");
  fs.add_duration("interval", &o->interval, "duration of time between polling/printing output");
  fs.add_duration("http-client-connect-timeout", &o->http_connect_timeout,
                  "timeout for HTTP connect");
  fs.add_duration("http-client-request-timeout", &o->http_request_timeout,
                  "timeout for HTTP request");
  fs.add_string_list("nsqd-http-address", &o->nsqd_http_addresses,
                     "nsqd HTTP address (may be given multiple times)");
  fs.add_string_list("lookupd-http-address", &o->lookupd_http_addresses,
                     "lookupd HTTP address (may be given multiple times)");
  fs.add("count", "number of reports", count_value(&o->count));
}

std::optional<std::string> validation_error(const Options& o) {
  if (o.topic.empty() || o.channel.empty()) return "--topic and --channel are required";
  if (o.interval.count() <= 0) return "--interval should be positive";
  if (o.http_connect_timeout.count() <= 0) {
    return "--http-client-connect-timeout should be positive";
  }
  if (o.http_request_timeout.count() <= 0) {
    return "--http-client-request-timeout should be positive";
  }
  if (o.count && *o.count <= 0) return "--count should be positive";
  if (o.nsqd_http_addresses.empty() && o.lookupd_http_addresses.empty()) {
    return "--nsqd-http-address or --lookupd-http-address required";
  }
  if (!o.nsqd_http_addresses.empty() && !o.lookupd_http_addresses.empty()) {
    return "use --nsqd-http-address or --lookupd-http-address not both";
  }
  if (has_scheme(o.nsqd_http_addresses)) {
    return "--nsqd-http-address error - address should not contain scheme";
  }
  if (has_scheme(o.lookupd_http_addresses)) {
    return "--lookupd-http-address error - address should not contain scheme";
  }
  return std::nullopt;
}

}  // namespace nsq::stat
