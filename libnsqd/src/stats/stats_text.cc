#include "stats/stats_text.h"

#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <ctime>

#include <nsq/flags/go_duration.h>

namespace nsq::nsqd {
namespace {

// printf into out; checked by the compiler like printf.
__attribute__((format(printf, 2, 3))) void appendf(std::string& out, const char* fmt, ...) {
  char buf[512];
  std::va_list ap;
  va_start(ap, fmt);
  std::va_list ap2;
  va_copy(ap2, ap);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n >= 0 && static_cast<std::size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<std::size_t>(n));
  } else if (n >= 0) {
    std::string big(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(big.data(), big.size(), fmt, ap2);
    big.resize(static_cast<std::size_t>(n));
    out += big;
  }
  va_end(ap2);
}

// Left-justifies s in a field of width w (Go's %-Ns).
std::string pad(std::string_view s, std::size_t w) {
  std::string r(s);
  // Go pads by runes, not bytes.
  std::size_t runes = 0;
  for (const char ch : s) {
    if ((static_cast<unsigned char>(ch) & 0xc0) != 0x80) ++runes;
  }
  if (runes < w) r.append(w - runes, ' ');
  return r;
}

std::string duration_since(std::int64_t then, std::int64_t now) {
  return flags::format_go_duration(std::chrono::seconds(now - then));
}

// The port of net.SplitHostPort(addr), "" when addr does not split.
std::string_view port_of(std::string_view addr) {
  if (!addr.empty() && addr.front() == '[') {
    const auto close = addr.find(']');
    if (close == std::string_view::npos || close + 1 >= addr.size() || addr[close + 1] != ':') {
      return {};
    }
    return addr.substr(close + 2);
  }
  const auto colon = addr.find(':');
  if (colon == std::string_view::npos || addr.find(':', colon + 1) != std::string_view::npos) {
    return {};
  }
  return addr.substr(colon + 1);
}

}  // namespace

namespace text {

std::string nanoseconds_to_human(double v) {
  const char* suffix = "ns";
  if (v > 1e9) {
    v /= 1e9;
    suffix = "s";
  } else if (v > 1e6) {
    v /= 1e6;
    suffix = "ms";
  } else if (v > 1e3) {
    v /= 1e3;
    suffix = "us";
  }
  std::string out;
  appendf(out, "%.1f%s", v, suffix);
  return out;
}

std::string latency_list(const stats::Latency& l) {
  std::string out;
  for (const auto& [q, v] : l.percentiles) {
    if (!out.empty()) out += ", ";
    out += nanoseconds_to_human(v);
  }
  return out;
}

std::string rfc3339_local(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out(buf);
  long off = tm.tm_gmtoff;
  if (off == 0) {
    out += 'Z';
  } else {
    const char sign = off < 0 ? '-' : '+';
    if (off < 0) off = -off;
    appendf(out, "%c%02ld:%02ld", sign, off / 3600, (off / 60) % 60);
  }
  return out;
}

std::string client_line(const stats::Client& c, std::int64_t now_unix) {
  std::string id = c.hostname;
  id += ':';
  id += port_of(c.remote_address);
  id += ' ';
  id += c.user_agent;
  const std::string connected = duration_since(c.connect_ts, now_unix);
  std::string out;
  if (!c.pub_counts.empty()) {
    std::uint64_t total = 0;
    std::string topics;
    for (const auto& p : c.pub_counts) {
      total += p.count;
      if (!topics.empty()) topics += ',';
      topics += p.topic;
      topics += '=';
      topics += std::to_string(p.count);
    }
    appendf(out, "[%s %s] msgs: %-8" PRIu64 " topics: %s connected: %s", c.version.c_str(),
            pad(id, 21).c_str(), total, topics.c_str(), connected.c_str());
    return out;
  }
  appendf(out,
          "[%s %s] state: %d inflt: %-4" PRId64 " rdy: %-4" PRId64 " fin: %-8" PRIu64
          " re-q: %-8" PRIu64 " msgs: %-8" PRIu64 " connected: %s",
          c.version.c_str(), pad(id, 21).c_str(), c.state, c.in_flight_count, c.ready_count,
          c.finish_count, c.requeue_count, c.message_count, connected.c_str());
  return out;
}

}  // namespace text

std::string render_stats_text(const stats::Snapshot& s, std::string_view version_line,
                              std::int64_t now_unix) {
  std::string out;
  out.reserve(1024);
  out.append(version_line);
  out += '\n';
  out += "start_time " + text::rfc3339_local(s.start_time) + '\n';
  out += "uptime " + duration_since(s.start_time, now_unix) + '\n';
  out += "\nHealth: " + s.health + '\n';

  if (s.memory) {
    const auto& m = *s.memory;
    out += "\nMemory:\n";
    const std::pair<const char*, std::int64_t> rows[] = {
        {"heap_objects", m.heap_objects},           {"heap_idle_bytes", m.heap_idle_bytes},
        {"heap_in_use_bytes", m.heap_in_use_bytes}, {"heap_released_bytes", m.heap_released_bytes},
        {"gc_pause_usec_100", m.gc_pause_usec_100}, {"gc_pause_usec_99", m.gc_pause_usec_99},
        {"gc_pause_usec_95", m.gc_pause_usec_95},   {"next_gc_bytes", m.next_gc_bytes},
        {"gc_total_runs", m.gc_total_runs},
    };
    for (const auto& [name, value] : rows) {
      appendf(out, "   %-25s\t%" PRId64 "\n", name, value);
    }
  }

  out += s.topics.empty() ? "\nTopics: None\n" : "\nTopics:";
  for (const auto& t : s.topics) {
    const std::string e2e = text::latency_list(t.e2e);
    appendf(out,
            "\n%s[%s] depth: %-5" PRId64 " be-depth: %-5" PRId64 " msgs: %-8" PRIu64 " e2e%%: %s\n",
            t.paused ? "*P " : "   ", pad(t.name, 15).c_str(), t.depth, t.backend_depth,
            t.message_count, e2e.c_str());
    for (const auto& c : t.channels) {
      const std::string ce2e = text::latency_list(c.e2e);
      appendf(out,
              "%s[%s] depth: %-5" PRId64 " be-depth: %-5" PRId64 " inflt: %-4" PRId64
              " def: %-4" PRId64 " re-q: %-5" PRIu64 " timeout: %-5" PRIu64 " msgs: %-8" PRIu64
              " e2e%%: %s\n",
              c.paused ? "   *P " : "      ", pad(c.name, 25).c_str(), c.depth, c.backend_depth,
              c.in_flight_count, c.deferred_count, c.requeue_count, c.timeout_count,
              c.message_count, ce2e.c_str());
      if (c.zone_local_msg_count + c.region_local_msg_count + c.global_msg_count > 0) {
        appendf(out,
                "        delivered zone-local: %-8" PRIu64 " region-local: %-8" PRIu64
                " global: %" PRIu64 "\n",
                c.zone_local_msg_count, c.region_local_msg_count, c.global_msg_count);
      }
      if (c.expired_count + c.dead_letter_count + c.discarded_count + c.dropped_count > 0) {
        appendf(out,
                "        expired: %-8" PRIu64 " dead-lettered: %-8" PRIu64 " discarded: %-8" PRIu64
                " dropped: %" PRIu64 "\n",
                c.expired_count, c.dead_letter_count, c.discarded_count, c.dropped_count);
      }
      for (const auto& client : c.clients) {
        out += "        " + text::client_line(client, now_unix) + '\n';
      }
    }
  }

  if (s.producers.empty()) {
    out += "\nProducers: None\n";
  } else {
    out += "\nProducers:\n";
    for (const auto& p : s.producers) {
      out += "   " + text::client_line(p, now_unix) + '\n';
    }
  }
  return out;
}

}  // namespace nsq::nsqd
