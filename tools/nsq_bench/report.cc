#include "report.h"

#include <cstdio>

namespace nsq::bench {
namespace {

struct NamedPercentile {
  std::string_view text;  // as printed
  std::string_view key;   // in RESULT
  double p;
};
constexpr NamedPercentile kPercentiles[] = {
    {"p50", "p50", 50}, {"p90", "p90", 90}, {"p99", "p99", 99}, {"p99.9", "p999", 99.9}};

}  // namespace

std::string format_fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string format_us(uint64_t ns) { return format_fixed(static_cast<double>(ns) / 1000.0, 1); }

std::string role_line(std::string_view role, const RoleSummary& s) {
  std::string out(role);
  out += ": " + std::to_string(s.connections) +
         (s.connections == 1 ? " connection, " : " connections, ");
  out += std::to_string(s.messages) + " msgs in " + format_fixed(s.secs, 3) + "s: ";
  out += format_fixed(s.messages_per_sec(), 0) + " msgs/s, " + format_fixed(s.mb_per_sec(), 2) +
         " MB/s";
  return out;
}

std::string percentile_line(std::string_view label, const LatencyHistogram& h) {
  std::string out(label);
  out += " (n=" + std::to_string(h.count()) + "):";
  for (const auto& p : kPercentiles) {
    out += ' ';
    out += p.text;
    out += '=' + format_us(h.percentile(p.p)) + "us";
  }
  out += " max=" + format_us(h.max()) + "us";
  return out;
}

std::string progress_line(int second, double interval_secs, uint64_t published, uint64_t consumed,
                          int size, bool has_writers, bool has_readers) {
  char head[32];
  std::snprintf(head, sizeof head, "[%3ds]", second);
  std::string out = head;
  auto rate = [&](std::string_view role, uint64_t n) {
    const double per_sec = interval_secs > 0 ? static_cast<double>(n) / interval_secs : 0;
    std::string s = " ";
    s += role;
    s += ' ' + format_fixed(per_sec, 0) + " msgs/s " + format_fixed(per_sec * size / kMiB, 2) +
         " MB/s";
    return s;
  };
  if (has_writers) out += rate("pub", published);
  if (has_writers && has_readers) out += " |";
  if (has_readers) out += rate("sub", consumed);
  return out;
}

ResultLine::ResultLine(std::string_view mode) : line_("RESULT mode=") { line_ += mode; }

ResultLine& ResultLine::add(std::string_view key, std::string_view value) {
  line_ += ' ';
  line_ += key;
  line_ += '=';
  line_ += value;
  return *this;
}

ResultLine& ResultLine::add(std::string_view key, uint64_t value) {
  return add(key, std::to_string(value));
}

ResultLine& ResultLine::add(std::string_view key, double value, int decimals) {
  return add(key, format_fixed(value, decimals));
}

ResultLine& ResultLine::add_role(std::string_view prefix, const RoleSummary& s) {
  const std::string p(prefix);
  add(p + "msgs", s.messages);
  add(p + "secs", s.secs, 3);
  add(p + "msgs_per_sec", s.messages_per_sec(), 0);
  add(p + "mb_per_sec", s.mb_per_sec(), 2);
  return *this;
}

ResultLine& ResultLine::add_percentiles(std::string_view prefix, const LatencyHistogram& h) {
  if (h.count() == 0) return *this;
  const std::string p(prefix);
  for (const auto& q : kPercentiles)
    add(p + std::string(q.key) + "_us", format_us(h.percentile(q.p)));
  add(p + "max_us", format_us(h.max()));
  return *this;
}

}  // namespace nsq::bench
