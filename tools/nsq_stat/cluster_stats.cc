#include "cluster_stats.h"

#include <algorithm>

#include "nsq/http/client.h"

namespace nsq::stat {
namespace {

// Go's ErrList: the messages one per line.
class Errors {
 public:
  void add(std::string e) {
    if (!text_.empty()) text_ += "\n";
    text_ += e;
  }
  bool empty() const { return text_.empty(); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace

tl::expected<std::vector<Producer>, std::string> lookupd_topic_producers(
    const Fetch& fetch, const std::string& topic, const std::vector<std::string>& lookupds) {
  std::vector<Producer> producers;
  Errors errors;
  for (const auto& lookupd : lookupds) {
    auto body = fetch(lookupd, "/lookup?topic=" + http::query_escape(topic));
    if (!body) {
      errors.add(body.error());
      continue;
    }
    auto found = parse_lookup_producers(*body);
    if (!found) {
      errors.add(found.error());
      continue;
    }
    for (auto& p : *found) {
      const bool known = std::any_of(producers.begin(), producers.end(), [&](const Producer& q) {
        return q.http_address() == p.http_address();
      });
      if (!known) producers.push_back(std::move(p));
    }
  }
  if (!errors.empty()) return tl::unexpected(errors.text());
  return producers;
}

tl::expected<std::vector<Producer>, std::string> nsqd_topic_producers(
    const Fetch& fetch, const std::string& topic, const std::vector<std::string>& nsqds) {
  std::vector<Producer> producers;
  Errors errors;
  for (const auto& nsqd : nsqds) {
    auto stats = fetch(
        nsqd, "/stats?format=json&topic=" + http::query_escape(topic) + "&include_clients=false");
    if (!stats) {
      errors.add(stats.error());
      continue;
    }
    auto has_topic = stats_has_topic(*stats, topic);
    if (!has_topic) {
      errors.add(has_topic.error());
      continue;
    }
    if (!*has_topic) continue;
    auto info = fetch(nsqd, "/info");
    if (!info) {
      errors.add(info.error());
      continue;
    }
    auto producer = parse_info_producer(*info);
    if (!producer) {
      errors.add(producer.error());
      continue;
    }
    producers.push_back(std::move(*producer));
  }
  if (!errors.empty()) return tl::unexpected(errors.text());
  return producers;
}

tl::expected<std::map<std::string, stats::ChannelCounts>, std::string> producers_channel_stats(
    const Fetch& fetch, const std::vector<Producer>& producers, const std::string& topic,
    const std::string& channel) {
  std::map<std::string, stats::ChannelCounts> sums;
  Errors errors;
  for (const auto& producer : producers) {
    auto body = fetch(producer.http_address(),
                      "/stats?format=json&topic=" + http::query_escape(topic) +
                          "&channel=" + http::query_escape(channel) + "&include_clients=false");
    if (!body) {
      errors.add(body.error());
      continue;
    }
    auto channels = parse_topic_channel_stats(*body, topic);
    if (!channels) {
      errors.add(channels.error());
      continue;
    }
    for (const auto& [name, stats] : *channels) sums[name].add(stats);
  }
  if (!errors.empty()) return tl::unexpected(errors.text());
  return sums;
}

}  // namespace nsq::stat
