#pragma once

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace nsq::client {

// The logger a Producer/Consumer uses when the caller gave none.
inline std::shared_ptr<spdlog::logger> or_null_logger(std::shared_ptr<spdlog::logger> logger,
                                                      const std::string& name) {
  if (logger) return logger;
  return std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace nsq::client
