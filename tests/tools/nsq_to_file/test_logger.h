#pragma once

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <mutex>
#include <string>

namespace nsq::testutil {

// A logger keeping its lines ("LEVEL text\n") for assertions.
class CapturingSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    text_ += std::string(spdlog::level::to_string_view(msg.level).data()) + " " +
             std::string(msg.payload.data(), msg.payload.size()) + "\n";
  }
  void flush_() override {}

 private:
  std::string text_;
};

struct CapturingLogger {
  std::shared_ptr<CapturingSink> sink = std::make_shared<CapturingSink>();
  std::shared_ptr<spdlog::logger> logger = [this] {
    auto l = std::make_shared<spdlog::logger>("test", sink);
    l->set_level(spdlog::level::trace);
    return l;
  }();
};

}  // namespace nsq::testutil
