#include "cluster_info.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <set>

#include "nsq/http/client.h"

namespace nsq::admin {
namespace {

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Runs f(item) for every item on its own thread (the upstream requests
// block), returning the results in item order.
template <class F>
auto in_parallel(const std::vector<std::string>& items, F f) {
  using R = decltype(f(items.front()));
  std::vector<std::future<R>> futures;
  futures.reserve(items.size());
  for (const auto& item : items) futures.push_back(std::async(std::launch::async, f, item));
  std::vector<R> out;
  out.reserve(items.size());
  for (auto& fut : futures) out.push_back(fut.get());
  return out;
}

// Go's actions give up (502) when the first lookup fails everywhere, and go
// on with a warning when it fails somewhere. True: give up.
template <class T>
bool absorb(Outcome& out, const Gathered<T>& g) {
  if (g.fatal) {
    out.fatal = g.fatal;
    return true;
  }
  out.errors.insert(out.errors.end(), g.errors.begin(), g.errors.end());
  return false;
}

std::string q(const std::string& s) { return http::query_escape(s); }

}  // namespace

std::string join_errors(const std::vector<std::string>& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += "\n";
    out += e;
  }
  return out;
}

ClusterInfo::ClusterInfo(UpstreamTimeouts timeouts, std::shared_ptr<spdlog::logger> log)
    : timeouts_(timeouts), log_(std::move(log)) {}

void ClusterInfo::debug(const std::string& text) const {
  if (log_) log_->debug("{}", text);
}

Gathered<std::vector<std::string>> ClusterInfo::lookupd_topics(const Addresses& lookupds) const {
  return lookupd_name_union(lookupds, "/topics", "topics");
}

Gathered<std::vector<std::string>> ClusterInfo::lookupd_topic_channels(
    const std::string& topic, const Addresses& lookupds) const {
  return lookupd_name_union(lookupds, "/channels?topic=" + q(topic), "channels");
}

// Every lookupd's answer to `target` (an object with the string array
// `field`), merged: sorted, without repeats. Fatal only when none answered.
Gathered<std::vector<std::string>> ClusterInfo::lookupd_name_union(const Addresses& lookupds,
                                                                   const std::string& target,
                                                                   const char* field) const {
  auto results = in_parallel(lookupds, [&](const std::string& addr) {
    const std::string url = "http://" + addr + target;
    debug("CI: querying nsqlookupd " + url);
    auto body = get_v1(url, timeouts_);
    if (!body)
      return tl::expected<std::vector<std::string>, std::string>(tl::unexpect, body.error());
    return parse_string_array(*body, field);
  });
  Gathered<std::vector<std::string>> out;
  std::set<std::string> names;
  for (auto& r : results) {
    if (!r) {
      out.errors.push_back(r.error());
      continue;
    }
    names.insert(r->begin(), r->end());
  }
  if (!lookupds.empty() && out.errors.size() == lookupds.size()) {
    out.fatal = "Failed to query any nsqlookupd: " + join_errors(out.errors);
    out.errors.clear();
    return out;
  }
  out.value.assign(names.begin(), names.end());
  return out;
}

Gathered<std::vector<Producer>> ClusterInfo::lookupd_producers(const Addresses& lookupds) const {
  auto results = in_parallel(lookupds, [this](const std::string& addr) {
    const std::string url = "http://" + addr + "/nodes";
    debug("CI: querying nsqlookupd " + url);
    auto body = get_v1(url, timeouts_);
    if (!body) return tl::expected<std::vector<Producer>, std::string>(tl::unexpect, body.error());
    return parse_lookupd_producers(*body);
  });
  Gathered<std::vector<Producer>> out;
  std::string max_version;
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto& r = results[i];
    if (!r) {
      out.errors.push_back(r.error());
      continue;
    }
    for (auto& p : *r) {
      // One node seen by several lookupds is one row, listing each lookupd.
      auto it = std::find_if(out.value.begin(), out.value.end(),
                             [&](const Producer& x) { return x.tcp_address() == p.tcp_address(); });
      if (it == out.value.end()) {
        std::sort(p.topics.begin(), p.topics.end(),
                  [](const ProducerTopic& a, const ProducerTopic& b) { return a.topic < b.topic; });
        if (max_version.empty() || version_less(max_version, p.version)) max_version = p.version;
        out.value.push_back(p);
        it = std::prev(out.value.end());
      }
      it->remote_addresses.push_back(lookupds[i] + "/" +
                                     (p.remote_address.empty() ? "N/A" : p.remote_address));
    }
  }
  if (!lookupds.empty() && out.errors.size() == lookupds.size()) {
    out.fatal = "Failed to query any nsqlookupd: " + join_errors(out.errors);
    out.errors.clear();
    out.value.clear();
    return out;
  }
  for (auto& p : out.value) p.out_of_date = version_less(p.version, max_version);
  sort_by_host(out.value);
  return out;
}

Gathered<std::vector<Producer>> ClusterInfo::lookupd_topic_producers(
    const std::string& topic, const Addresses& lookupds) const {
  auto results = in_parallel(lookupds, [&](const std::string& addr) {
    const std::string url = "http://" + addr + "/lookup?topic=" + q(topic);
    debug("CI: querying nsqlookupd " + url);
    auto body = get_v1(url, timeouts_);
    if (!body) return tl::expected<std::vector<Producer>, std::string>(tl::unexpect, body.error());
    return parse_lookupd_producers(*body);
  });
  Gathered<std::vector<Producer>> out;
  for (auto& r : results) {
    if (!r) {
      out.errors.push_back(r.error());
      continue;
    }
    for (auto& p : *r) {
      bool known = std::any_of(out.value.begin(), out.value.end(), [&](const Producer& x) {
        return x.http_address() == p.http_address();
      });
      if (!known) out.value.push_back(std::move(p));
    }
  }
  if (!lookupds.empty() && out.errors.size() == lookupds.size()) {
    out.fatal = "Failed to query any nsqlookupd: " + join_errors(out.errors);
    out.errors.clear();
    out.value.clear();
  }
  return out;
}

namespace {

// One nsqd seen through /info and /stats: what the nsqd-only mode needs.
struct NsqdView {
  Producer producer;
  std::vector<TopicStats> topics;
};

tl::expected<NsqdView, std::string> view_nsqd(const std::string& addr, const std::string& topic,
                                              const UpstreamTimeouts& timeouts) {
  std::string url = "http://" + addr + "/stats?format=json&include_clients=false";
  if (!topic.empty()) url += "&topic=" + http::query_escape(topic);
  auto stats_body = get_v1(url, timeouts);
  if (!stats_body) return tl::unexpected(stats_body.error());
  auto stats = parse_nsqd_stats(*stats_body, now_seconds());
  if (!stats) return tl::unexpected(stats.error());
  auto info_body = get_v1("http://" + addr + "/info", timeouts);
  if (!info_body) return tl::unexpected(info_body.error());
  auto info = parse_nsqd_info(*info_body);
  if (!info) return tl::unexpected(info.error());
  NsqdView view{std::move(*info), std::move(*stats)};
  for (const auto& t : view.topics) view.producer.topics.push_back({t.topic_name, false});
  return view;
}

}  // namespace

Gathered<std::vector<std::string>> ClusterInfo::nsqd_topics(const Addresses& nsqds) const {
  auto results = in_parallel(nsqds, [this](const std::string& addr) {
    debug("CI: querying nsqd http://" + addr + "/stats?format=json");
    return view_nsqd(addr, "", timeouts_);
  });
  Gathered<std::vector<std::string>> out;
  std::set<std::string> topics;
  for (auto& r : results) {
    if (!r) {
      out.errors.push_back(r.error());
      continue;
    }
    for (const auto& t : r->topics) topics.insert(t.topic_name);
  }
  if (!nsqds.empty() && out.errors.size() == nsqds.size()) {
    out.fatal = "Failed to query any nsqd: " + join_errors(out.errors);
    out.errors.clear();
    return out;
  }
  out.value.assign(topics.begin(), topics.end());
  return out;
}

Gathered<std::vector<Producer>> ClusterInfo::nsqd_producers(const Addresses& nsqds) const {
  return nsqd_topic_producers("", nsqds);
}

Gathered<std::vector<Producer>> ClusterInfo::nsqd_topic_producers(const std::string& topic,
                                                                  const Addresses& nsqds) const {
  auto results = in_parallel(nsqds, [&](const std::string& addr) {
    debug("CI: querying nsqd http://" + addr + "/stats?format=json");
    return view_nsqd(addr, topic, timeouts_);
  });
  Gathered<std::vector<Producer>> out;
  for (auto& r : results) {
    if (!r) {
      out.errors.push_back(r.error());
      continue;
    }
    bool has_topic =
        topic.empty() || std::any_of(r->topics.begin(), r->topics.end(),
                                     [&](const TopicStats& t) { return t.topic_name == topic; });
    if (has_topic) out.value.push_back(std::move(r->producer));
  }
  if (!nsqds.empty() && out.errors.size() == nsqds.size()) {
    out.fatal = "Failed to query any nsqd: " + join_errors(out.errors);
    out.errors.clear();
    out.value.clear();
    return out;
  }
  sort_by_host(out.value);
  return out;
}

Gathered<std::vector<std::string>> ClusterInfo::topics(const Addresses& lookupds,
                                                       const Addresses& nsqds) const {
  return lookupds.empty() ? nsqd_topics(nsqds) : lookupd_topics(lookupds);
}

Gathered<std::vector<Producer>> ClusterInfo::producers(const Addresses& lookupds,
                                                       const Addresses& nsqds) const {
  return lookupds.empty() ? nsqd_producers(nsqds) : lookupd_producers(lookupds);
}

Gathered<std::vector<Producer>> ClusterInfo::topic_producers(const std::string& topic,
                                                             const Addresses& lookupds,
                                                             const Addresses& nsqds) const {
  return lookupds.empty() ? nsqd_topic_producers(topic, nsqds)
                          : lookupd_topic_producers(topic, lookupds);
}

Gathered<NsqdStats> ClusterInfo::nsqd_stats(const std::vector<Producer>& producers,
                                            const std::string& topic, const std::string& channel,
                                            bool include_clients) const {
  std::vector<std::string> addrs;
  for (const auto& p : producers) addrs.push_back(p.http_address());
  auto results = in_parallel(addrs, [&](const std::string& addr) {
    std::string url = "http://" + addr + "/stats?format=json";
    if (!topic.empty()) {
      url += "&topic=" + q(topic);
      if (!channel.empty()) url += "&channel=" + q(channel);
    }
    if (!include_clients) url += "&include_clients=false";
    debug("CI: querying nsqd " + url);
    using Parsed = std::pair<std::vector<TopicStats>, bool>;  // and draining
    auto body = get_v1(url, timeouts_);
    if (!body) return tl::expected<Parsed, std::string>(tl::unexpect, body.error());
    bool draining = false;
    auto topics = parse_nsqd_stats(*body, now_seconds(), &draining);
    if (!topics) return tl::expected<Parsed, std::string>(tl::unexpect, topics.error());
    return tl::expected<Parsed, std::string>(Parsed{std::move(*topics), draining});
  });
  Gathered<NsqdStats> out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto& r = results[i];
    if (!r) {
      out.errors.push_back(r.error());
      continue;
    }
    const std::string& node = addrs[i];
    const std::string& hostname = producers[i].hostname;
    if (r->second) out.value.draining.push_back(node);
    for (auto& t : r->first) {
      if (!topic.empty() && t.topic_name != topic) continue;
      t.node = node;
      t.hostname = hostname;
      for (auto& c : t.channels) {
        c.node = node;
        c.hostname = hostname;
        for (auto& cl : c.clients) cl.node = node;
        const std::string key =
            topic.empty() ? t.topic_name + ":" + c.channel_name : c.channel_name;
        auto [it, fresh] = out.value.channels.try_emplace(key);
        if (fresh) {
          it->second.node = node;
          it->second.topic_name = t.topic_name;
          it->second.channel_name = c.channel_name;
        }
        it->second.add(c);
      }
      out.value.topics.push_back(std::move(t));
    }
  }
  // As Go: zero producers is a failure too ("Failed to query any nsqd: "
  // with nothing after it), so a topic no nsqd produces answers 502.
  if (out.errors.size() == addrs.size()) {
    out.fatal = "Failed to query any nsqd: " + join_errors(out.errors);
    out.errors.clear();
    out.value = {};
    return out;
  }
  sort_by_host(out.value.topics);
  return out;
}

std::vector<std::string> ClusterInfo::post_all(const Addresses& addresses,
                                               const std::string& path_query,
                                               const char* kind) const {
  std::vector<std::string> errors;
  for (const auto& addr : addresses) {
    const std::string url = "http://" + addr + "/" + path_query;
    debug(std::string("CI: querying ") + kind + " " + url);
    if (auto r = post_v1(url, timeouts_); !r) errors.push_back(r.error());
  }
  return errors;
}

namespace {

Addresses http_addresses(const std::vector<Producer>& producers) {
  Addresses out;
  for (const auto& p : producers) out.push_back(p.http_address());
  return out;
}

void add(Outcome& out, std::vector<std::string> errors) {
  out.errors.insert(out.errors.end(), errors.begin(), errors.end());
}

}  // namespace

Outcome ClusterInfo::create_topic_channel(const std::string& topic, const std::string& channel,
                                          const Addresses& lookupds, const Addresses& nsqds) const {
  Outcome out;
  const std::string tq = "topic=" + q(topic);
  if (lookupds.empty()) {
    // Not in Go (it creates through lookupds only): an nsqd-only nsqadmin
    // creates on each nsqd it was given.
    add(out, post_all(nsqds, "topic/create?" + tq, "nsqd"));
    if (!channel.empty()) {
      add(out, post_all(nsqds, "channel/create?" + tq + "&channel=" + q(channel), "nsqd"));
    }
    return out;
  }
  add(out, post_all(lookupds, "topic/create?" + tq, "nsqlookupd"));
  if (!channel.empty()) {
    const std::string cq = tq + "&channel=" + q(channel);
    add(out, post_all(lookupds, "channel/create?" + cq, "nsqlookupd"));
    auto producers = lookupd_topic_producers(topic, lookupds);
    if (absorb(out, producers)) return out;
    add(out, post_all(http_addresses(producers.value), "channel/create?" + cq, "nsqd"));
  }
  return out;
}

Outcome ClusterInfo::delete_topic(const std::string& topic, const Addresses& lookupds,
                                  const Addresses& nsqds) const {
  Outcome out;
  // The producers first: once lookupds forget the topic they cannot tell.
  auto producers = topic_producers(topic, lookupds, nsqds);
  if (absorb(out, producers)) return out;
  const std::string tq = "topic=" + q(topic);
  add(out, post_all(lookupds, "topic/delete?" + tq, "nsqlookupd"));
  add(out, post_all(http_addresses(producers.value), "topic/delete?" + tq, "nsqd"));
  return out;
}

Outcome ClusterInfo::delete_channel(const std::string& topic, const std::string& channel,
                                    const Addresses& lookupds, const Addresses& nsqds) const {
  Outcome out;
  auto producers = topic_producers(topic, lookupds, nsqds);
  if (absorb(out, producers)) return out;
  const std::string cq = "topic=" + q(topic) + "&channel=" + q(channel);
  add(out, post_all(lookupds, "channel/delete?" + cq, "nsqlookupd"));
  add(out, post_all(http_addresses(producers.value), "channel/delete?" + cq, "nsqd"));
  return out;
}

Outcome ClusterInfo::topic_channel_action(const std::string& verb, const std::string& topic,
                                          const std::string& channel, const Addresses& lookupds,
                                          const Addresses& nsqds) const {
  Outcome out;
  auto producers = topic_producers(topic, lookupds, nsqds);
  if (absorb(out, producers)) return out;
  std::string path = channel.empty()
                         ? "topic/" + verb + "?topic=" + q(topic)
                         : "channel/" + verb + "?topic=" + q(topic) + "&channel=" + q(channel);
  add(out, post_all(http_addresses(producers.value), path, "nsqd"));
  return out;
}

Outcome ClusterInfo::tombstone_node_for_topic(const std::string& topic, const std::string& node,
                                              const Addresses& lookupds) const {
  Outcome out;
  add(out,
      post_all(lookupds, "topic/tombstone?topic=" + q(topic) + "&node=" + q(node), "nsqlookupd"));
  auto producers = nsqd_producers({node});
  if (absorb(out, producers)) return out;
  add(out, post_all(http_addresses(producers.value), "topic/delete?topic=" + q(topic), "nsqd"));
  return out;
}

Gathered<std::vector<std::pair<std::string, std::string>>> ClusterInfo::channel_peek(
    const std::vector<Producer>& producers, const std::string& topic, const std::string& channel,
    const std::string& state, int n) const {
  std::vector<std::string> addrs;
  for (const auto& p : producers) addrs.push_back(p.http_address());
  auto results = in_parallel(addrs, [&](const std::string& addr) {
    const std::string url = "http://" + addr + "/channel/peek?topic=" + http::query_escape(topic) +
                            "&channel=" + http::query_escape(channel) +
                            "&state=" + http::query_escape(state) + "&n=" + std::to_string(n);
    debug("CI: querying nsqd " + url);
    auto body = get_v1(url, timeouts_);
    if (!body) return tl::expected<std::string, std::string>(tl::unexpect, body.error());
    rapidjson::Document d;
    d.Parse(body->c_str(), body->size());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("messages") ||
        !d["messages"].IsArray()) {
      return tl::expected<std::string, std::string>(tl::unexpect,
                                                    std::string("invalid JSON response"));
    }
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    d["messages"].Accept(w);
    return tl::expected<std::string, std::string>(std::string(buf.GetString(), buf.GetSize()));
  });
  Gathered<std::vector<std::pair<std::string, std::string>>> out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i]) {
      out.value.emplace_back(addrs[i], std::move(*results[i]));
    } else {
      out.errors.push_back(results[i].error());
    }
  }
  if (!addrs.empty() && out.errors.size() == addrs.size()) {
    out.fatal = "Failed to query any nsqd: " + join_errors(out.errors);
    out.errors.clear();
  }
  return out;
}

}  // namespace nsq::admin
