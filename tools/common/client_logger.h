#pragma once

#include <memory>
#include <string>

namespace spdlog {
class logger;
}

// The logger a tool hands to its Consumer/Producer: go-nsq logs through
// Go's standard logger with its own level words, so lines look like
// "2006/01/02 15:04:05 INF  [topic/channel] querying nsqlookupd ...".
namespace nsq::tools {

// stderr, level info (go-nsq's default LogLevelInfo), flushed per line.
std::shared_ptr<spdlog::logger> make_client_logger(const std::string& name);

}  // namespace nsq::tools
