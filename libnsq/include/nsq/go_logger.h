#pragma once

#include <memory>
#include <string>

namespace spdlog {
class logger;
}

namespace nsq {

// Go NSQ's log level names, lowest first.
enum class GoLogLevel { debug, info, warn, error, fatal };

// A logger writing to stderr as Go NSQ does: "<prefix>2006/01/02 15:04:05.000000 INFO: text".
// `prefix` is printed as given (e.g. "[nsqd] "). For main() only; libraries
// receive their logger.
std::shared_ptr<spdlog::logger> make_go_logger(const std::string& name, const std::string& prefix,
                                               GoLogLevel level);

// Go's level words: DEBUG, INFO, WARNING, ERROR, FATAL.
void set_go_log_level(spdlog::logger& logger, GoLogLevel level);

}  // namespace nsq
