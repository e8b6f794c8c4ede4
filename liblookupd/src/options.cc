#include "lookupd/options.h"

#include <unistd.h>

#include <climits>

namespace nsq::lookupd {

Options default_options(std::string_view hostname) {
  Options opts;
  opts.broadcast_address = std::string(hostname);
  return opts;
}

std::string os_hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return std::string(buf);
}

std::string_view to_string(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warn:
      return "warn";
    case LogLevel::error:
      return "error";
    case LogLevel::fatal:
      return "fatal";
  }
  return "invalid";
}

}  // namespace nsq::lookupd
