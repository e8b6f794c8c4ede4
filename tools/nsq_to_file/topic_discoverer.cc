#include "topic_discoverer.h"

#include <spdlog/spdlog.h>

#include <csignal>

namespace nsq::to_file {

TopicDiscoverer::TopicDiscoverer(const Options& options, std::shared_ptr<spdlog::logger> log,
                                 std::shared_ptr<spdlog::logger> client_log,
                                 FetchTopics fetch_topics)
    : options_(options),
      log_(std::move(log)),
      client_log_(std::move(client_log)),
      fetch_topics_(std::move(fetch_topics)),
      filter_(options.topic_pattern) {}

void TopicDiscoverer::update_topics(const std::vector<std::string>& topics) {
  for (const auto& topic : topics) {
    if (archivers_.count(topic) != 0) continue;
    if (!filter_.allowed(topic)) {
      log_->warn("skipping topic {} (doesn't match pattern {})", topic, filter_.pattern());
      continue;
    }
    auto archiver = TopicArchiver::start(topic, options_, log_, client_log_);
    if (!archiver) {
      log_->error("couldn't create logger for new topic {}: {}", topic, archiver.error());
      continue;
    }
    archivers_.emplace(topic, std::move(*archiver));
  }
}

void TopicDiscoverer::run(const WaitSignal& wait_signal) {
  using Clock = std::chrono::steady_clock;
  const bool discover = options_.topics.empty() && options_.topic_refresh.count() > 0;
  const auto refresh = std::chrono::duration_cast<Clock::duration>(options_.topic_refresh);
  auto next_refresh = Clock::now() + refresh;
  update_topics(options_.topics);
  while (true) {
    auto timeout = std::chrono::milliseconds(60'000);
    if (discover) {
      timeout = std::max(
          std::chrono::milliseconds(0),
          std::chrono::duration_cast<std::chrono::milliseconds>(next_refresh - Clock::now()));
    }
    const std::optional<int> sig = wait_signal(timeout);
    if (!sig) {
      if (!discover || Clock::now() < next_refresh) continue;
      while (next_refresh <= Clock::now()) next_refresh += refresh;
      auto topics = fetch_topics_();
      if (!topics) {
        log_->error("could not retrieve topic list: {}", topics.error());
        continue;
      }
      update_topics(*topics);
    } else if (*sig == SIGHUP) {
      for (auto& [topic, archiver] : archivers_) archiver->hangup();
    } else {
      for (auto& [topic, archiver] : archivers_) archiver->terminate();
      break;
    }
  }
  for (auto& [topic, archiver] : archivers_) archiver->join();
  // Their consumers join their own threads as they go.
  archivers_.clear();
}

}  // namespace nsq::to_file
