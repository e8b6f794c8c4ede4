#include "common/client_logger.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace nsq::tools {
namespace {

// go-nsq's level words (DBG INF WRN ERR), padded to 4 as its "%-4s".
class GoNsqLevelFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view word;
    switch (msg.level) {
      case spdlog::level::trace:
      case spdlog::level::debug:
        word = "DBG ";
        break;
      case spdlog::level::info:
        word = "INF ";
        break;
      case spdlog::level::warn:
        word = "WRN ";
        break;
      default:
        word = "ERR ";
        break;
    }
    dest.append(word.data(), word.data() + word.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<GoNsqLevelFlag>();
  }
};

}  // namespace

std::shared_ptr<spdlog::logger> make_client_logger(const std::string& name) {
  auto logger =
      std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<GoNsqLevelFlag>('*').set_pattern("%Y/%m/%d %H:%M:%S %* %v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::trace);
  return logger;
}

}  // namespace nsq::tools
