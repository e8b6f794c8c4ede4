#pragma once

// Pieces shared by the fault tests (issue 8): what a test measures of the
// nsqd process from outside (RSS and open fds from /proc, /stats over HTTP),
// a bounded wait on a condition, the file-descriptor limit, and a small tmpfs.
// Everything is observed, never slept on: waits poll a condition until a
// deadline.

#include <dirent.h>
#include <rapidjson/document.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "integration/harness.h"
#include "testutil/http_client.h"
#include "testutil/small_tmpfs.h"

namespace nsq::integration::fault {

using Clock = std::chrono::steady_clock;

// Resident set size of a process in KiB (VmRSS), -1 if unreadable.
inline long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Open file descriptors of a process (entries of /proc/<pid>/fd), -1 if unreadable.
inline int fd_count(pid_t pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(path.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') ++n;
  }
  ::closedir(d);
  return n;
}

// Polls pred every `step` until it holds or `timeout` passes; returns pred's last value.
inline bool eventually(const std::function<bool()>& pred, ms timeout, ms step = ms(20)) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(step);  // polling interval, not synchronisation
  }
}

// Raises this process's soft RLIMIT_NOFILE to at least `want` (children
// inherit it); returns the soft limit now in force.
inline rlim_t raise_nofile(rlim_t want) {
  rlimit lim{};
  ::getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < want) {
    lim.rlim_cur = std::min(want, lim.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &lim);
    ::getrlimit(RLIMIT_NOFILE, &lim);
  }
  return lim.rlim_cur;
}

// nsqd's /stats as a parsed JSON document; null on any failure.
inline std::unique_ptr<rapidjson::Document> stats(int http_port) {
  auto r = testutil::http_once(http_port, "GET", "/stats?format=json");
  if (!r || r->status != 200) return nullptr;
  auto doc = std::make_unique<rapidjson::Document>();
  doc->Parse(r->body.c_str());
  if (doc->HasParseError() || !doc->IsObject()) return nullptr;
  return doc;
}

// The stats object of topic/channel in a /stats document, null if absent.
inline const rapidjson::Value* find_channel(const rapidjson::Document& doc,
                                            const std::string& topic, const std::string& channel) {
  auto t = doc.FindMember("topics");
  if (t == doc.MemberEnd() || !t->value.IsArray()) return nullptr;
  for (const auto& tv : t->value.GetArray()) {
    if (!tv.IsObject() || !tv.HasMember("topic_name") || topic != tv["topic_name"].GetString())
      continue;
    if (!tv.HasMember("channels")) return nullptr;
    for (const auto& cv : tv["channels"].GetArray()) {
      if (cv.HasMember("channel_name") && channel == cv["channel_name"].GetString()) return &cv;
    }
  }
  return nullptr;
}

inline int64_t channel_stat(int http_port, const std::string& topic, const std::string& channel,
                            const char* field) {
  auto doc = stats(http_port);
  if (!doc) return -1;
  const rapidjson::Value* c = find_channel(*doc, topic, channel);
  if (c == nullptr || !c->HasMember(field) || !(*c)[field].IsInt64()) return -1;
  return (*c)[field].GetInt64();
}

// Number of clients subscribed to topic/channel per /stats, -1 if unknown.
inline int channel_clients(int http_port, const std::string& topic, const std::string& channel) {
  auto doc = stats(http_port);
  if (!doc) return -1;
  const rapidjson::Value* c = find_channel(*doc, topic, channel);
  if (c == nullptr || !c->HasMember("clients")) return -1;
  return static_cast<int>((*c)["clients"].GetArray().Size());
}

using testutil::SmallTmpfs;

// Reads every message of topic/channel until `want` distinct bodies were
// seen or nothing arrives for `quiet`; FINs each. Returns the bodies seen.
inline std::set<std::string> drain(RawClient& c, std::size_t want, ms quiet = ms(3000)) {
  std::set<std::string> seen;
  while (seen.size() < want) {
    auto r = c.read_skip_heartbeats(quiet);
    if (r.status != RawClient::ReadStatus::frame) break;
    auto m = testutil::to_test_message(r.frame);
    if (!m) continue;  // a stray response
    seen.insert(m->body);
    c.fin(m->id);
  }
  return seen;
}

}  // namespace nsq::integration::fault
