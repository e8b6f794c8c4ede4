#pragma once

#include <memory>
#include <string>
#include <string_view>

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

// The logger a Go tool hands to go-nsq's Consumer/Producer: go-nsq logs
// through Go's standard logger with its own level words, so lines look like
// "2006/01/02 15:04:05 INF  [topic/channel] querying nsqlookupd ...". On
// stderr, level info (go-nsq's default LogLevelInfo), flushed per line.
std::shared_ptr<spdlog::logger> make_go_client_logger(const std::string& name);

// Go's level words: DEBUG, INFO, WARNING, ERROR, FATAL.
void set_go_log_level(spdlog::logger& logger, GoLogLevel level);

// Writes `text` at `level` (fatal is a log line, not an exit).
void log_at(spdlog::logger& logger, GoLogLevel level, std::string_view text);

}  // namespace nsq
