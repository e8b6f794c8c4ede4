#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "options.h"
#include "topic_archiver.h"
#include "topic_filter.h"

namespace spdlog {
class logger;
}

namespace nsq::to_file {

// Go's TopicDiscoverer: one TopicArchiver per allowed topic (the given
// --topic list, or every topic lookupd lists, re-read every
// --topic-refresh, the first time one interval after start), SIGHUP passed
// to each, SIGINT/SIGTERM ends them all and waits for them.
class TopicDiscoverer {
 public:
  // The next signal within timeout, nullopt if none came.
  using WaitSignal = std::function<std::optional<int>(std::chrono::milliseconds)>;
  using FetchTopics = std::function<tl::expected<std::vector<std::string>, std::string>()>;

  // options must outlive the discoverer.
  TopicDiscoverer(const Options& options, std::shared_ptr<spdlog::logger> log,
                  std::shared_ptr<spdlog::logger> client_log, FetchTopics fetch_topics);

  // Until SIGINT/SIGTERM has stopped every archiver.
  void run(const WaitSignal& wait_signal);

 private:
  void update_topics(const std::vector<std::string>& topics);

  const Options& options_;
  std::shared_ptr<spdlog::logger> log_;
  std::shared_ptr<spdlog::logger> client_log_;
  FetchTopics fetch_topics_;
  TopicFilter filter_;
  std::map<std::string, std::unique_ptr<TopicArchiver>> archivers_;
};

}  // namespace nsq::to_file
