#include "nsq/go_logger.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace nsq {
namespace {

// Go's level words where spdlog writes its own (flag %*).
class GoLevelFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view word;
    switch (msg.level) {
      case spdlog::level::trace:
      case spdlog::level::debug: word = "DEBUG"; break;
      case spdlog::level::info: word = "INFO"; break;
      case spdlog::level::warn: word = "WARNING"; break;
      case spdlog::level::err: word = "ERROR"; break;
      default: word = "FATAL"; break;
    }
    dest.append(word.data(), word.data() + word.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<GoLevelFlag>();
  }
};

spdlog::level::level_enum to_spdlog(GoLogLevel level) {
  switch (level) {
    case GoLogLevel::debug: return spdlog::level::debug;
    case GoLogLevel::info: return spdlog::level::info;
    case GoLogLevel::warn: return spdlog::level::warn;
    case GoLogLevel::error: return spdlog::level::err;
    case GoLogLevel::fatal: return spdlog::level::critical;
  }
  return spdlog::level::info;
}

}  // namespace

void set_go_log_level(spdlog::logger& logger, GoLogLevel level) { logger.set_level(to_spdlog(level)); }

std::shared_ptr<spdlog::logger> make_go_logger(const std::string& name, const std::string& prefix,
                                               GoLogLevel level) {
  auto logger =
      std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  // The prefix is data, not pattern: escape spdlog's flag character.
  std::string escaped;
  for (char c : prefix) {
    if (c == '%') escaped += '%';
    escaped += c;
  }
  formatter->add_flag<GoLevelFlag>('*').set_pattern(escaped + "%Y/%m/%d %H:%M:%S.%f %*: %v");
  logger->set_formatter(std::move(formatter));
  set_go_log_level(*logger, level);
  logger->flush_on(spdlog::level::trace);
  return logger;
}

}  // namespace nsq
