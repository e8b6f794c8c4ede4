// nsqlookupd: flags and config file -> Options -> Server, until SIGINT/SIGTERM.
#include <pthread.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>

#include "lookupd/options_parser.h"
#include "lookupd/server.h"

namespace {

// Go's log level words (INFO, WARNING, ...) where spdlog writes its own.
class GoLevel : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string_view word;
    switch (msg.level) {
      case spdlog::level::trace:
      case spdlog::level::debug:
        word = "DEBUG";
        break;
      case spdlog::level::info:
        word = "INFO";
        break;
      case spdlog::level::warn:
        word = "WARNING";
        break;
      case spdlog::level::err:
        word = "ERROR";
        break;
      default:
        word = "FATAL";
        break;
    }
    dest.append(word.data(), word.data() + word.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<GoLevel>();
  }
};

spdlog::level::level_enum to_spdlog(nsq::lookupd::LogLevel level) {
  using nsq::lookupd::LogLevel;
  switch (level) {
    case LogLevel::debug:
      return spdlog::level::debug;
    case LogLevel::info:
      return spdlog::level::info;
    case LogLevel::warn:
      return spdlog::level::warn;
    case LogLevel::error:
      return spdlog::level::err;
    case LogLevel::fatal:
      return spdlog::level::critical;
  }
  return spdlog::level::info;
}

std::shared_ptr<spdlog::logger> make_logger(const nsq::lookupd::Options& options) {
  auto logger = std::make_shared<spdlog::logger>("nsqlookupd",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  // The prefix is data, not pattern: escape spdlog's flag character.
  std::string prefix;
  for (char c : options.log_prefix) {
    if (c == '%') prefix += '%';
    prefix += c;
  }
  formatter->add_flag<GoLevel>('*').set_pattern(prefix + "%Y/%m/%d %H:%M:%S.%f %*: %v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(to_spdlog(options.log_level));
  logger->flush_on(spdlog::level::trace);
  return logger;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = nsq::lookupd::parse_lookupd_options(argc, argv);
  if (!parsed) {
    const auto& exit = parsed.error();
    std::fputs(exit.text.c_str(), exit.to_stderr ? stderr : stdout);
    if (!exit.text.empty() && exit.text.back() != '\n') {
      std::fputc('\n', exit.to_stderr ? stderr : stdout);
    }
    return exit.exit_code;
  }
  auto log = make_logger(*parsed);

  // Signals are taken by one thread with sigwait, so every other thread
  // (started after this) runs with them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  log->info("{}", nsq::lookupd::version_string(nsq::lookupd::current_parse_env().compiler));
  nsq::lookupd::Server server(std::move(*parsed), log);
  if (std::string error = server.start(); !error.empty()) {
    log->critical("{}", error);
    return 1;
  }
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    log->info("signal {} received, shutting down", sig);
    server.stop();
  });
  server.run();
  // The signal thread is parked in sigwait unless a signal stopped us.
  pthread_kill(signal_thread.native_handle(), SIGTERM);
  signal_thread.join();
  log->info("nsqlookupd: exited cleanly");
  return 0;
}
