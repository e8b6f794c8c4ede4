#include "nsq/go_logger.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <array>

namespace nsq {
namespace {

// One word per level, lowest first: trace/debug, info, warn, error, above.
using LevelWords = std::array<std::string_view, 5>;

// Go's level words where spdlog writes its own (flag %*).
constexpr LevelWords kGoWords = {"DEBUG", "INFO", "WARNING", "ERROR", "FATAL"};
// go-nsq's (DBG INF WRN ERR), padded to 4 as its "%-4s"; it has no fatal.
constexpr LevelWords kGoNsqWords = {"DBG ", "INF ", "WRN ", "ERR ", "ERR "};

class LevelWordFlag : public spdlog::custom_flag_formatter {
 public:
  explicit LevelWordFlag(const LevelWords& words) : words_(words) {}

  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view word;
    switch (msg.level) {
      case spdlog::level::trace:
      case spdlog::level::debug:
        word = words_[0];
        break;
      case spdlog::level::info:
        word = words_[1];
        break;
      case spdlog::level::warn:
        word = words_[2];
        break;
      case spdlog::level::err:
        word = words_[3];
        break;
      default:
        word = words_[4];
        break;
    }
    dest.append(word.data(), word.data() + word.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<LevelWordFlag>(words_);
  }

 private:
  const LevelWords& words_;
};

spdlog::level::level_enum to_spdlog(GoLogLevel level) {
  switch (level) {
    case GoLogLevel::debug:
      return spdlog::level::debug;
    case GoLogLevel::info:
      return spdlog::level::info;
    case GoLogLevel::warn:
      return spdlog::level::warn;
    case GoLogLevel::error:
      return spdlog::level::err;
    case GoLogLevel::fatal:
      return spdlog::level::critical;
  }
  return spdlog::level::info;
}

// A stderr logger flushed per line; `pattern` writes the level word with %*.
std::shared_ptr<spdlog::logger> make_stderr_logger(const std::string& name, const LevelWords& words,
                                                   const std::string& pattern,
                                                   spdlog::level::level_enum level) {
  auto logger =
      std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<LevelWordFlag>('*', words).set_pattern(pattern);
  logger->set_formatter(std::move(formatter));
  logger->set_level(level);
  logger->flush_on(spdlog::level::trace);
  return logger;
}

}  // namespace

void set_go_log_level(spdlog::logger& logger, GoLogLevel level) {
  logger.set_level(to_spdlog(level));
}

void log_at(spdlog::logger& logger, GoLogLevel level, std::string_view text) {
  logger.log(to_spdlog(level), "{}", text);
}

std::shared_ptr<spdlog::logger> make_go_logger(const std::string& name, const std::string& prefix,
                                               GoLogLevel level) {
  // The prefix is data, not pattern: escape spdlog's flag character.
  std::string escaped;
  for (char c : prefix) {
    if (c == '%') escaped += '%';
    escaped += c;
  }
  return make_stderr_logger(name, kGoWords, escaped + "%Y/%m/%d %H:%M:%S.%f %*: %v",
                            to_spdlog(level));
}

std::shared_ptr<spdlog::logger> make_go_client_logger(const std::string& name) {
  return make_stderr_logger(name, kGoNsqWords, "%Y/%m/%d %H:%M:%S %* %v", spdlog::level::info);
}

}  // namespace nsq
