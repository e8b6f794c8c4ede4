#include "stats/stats_json.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace nsq::nsqd {
namespace json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Length (2-4) of the valid UTF-8 sequence at s[i] as Go's utf8.DecodeRune
// accepts it (no overlongs, no surrogates, nothing above U+10FFFF), or 0.
std::size_t valid_sequence(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    len = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3;
    if (b0 == 0xe0) lo = 0xa0;
    if (b0 == 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4;
    if (b0 == 0xf0) lo = 0x90;
    if (b0 == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  if (b1 < lo || b1 > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return len;
}

}  // namespace

void append_string(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xf]);
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    const std::size_t len = valid_sequence(s, i);
    if (len == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    // U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR: E2 80 A8/A9.
    if (len == 3 && c == 0xe2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
        (static_cast<unsigned char>(s[i + 2]) & 0xfe) == 0xa8) {
      out += (s[i + 2] == '\xa8') ? "\\u2028" : "\\u2029";
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  out.push_back('"');
}

void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out.push_back('0');
    return;
  }
  char buf[64];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-6 || a >= 1e21)) {
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string_view t(buf, static_cast<std::size_t>(r.ptr - buf));
    // to_chars writes at least two exponent digits like Go's strconv;
    // encoding/json then shortens "e-07" to "e-7".
    const std::size_t n = t.size();
    if (n >= 4 && t[n - 4] == 'e' && t[n - 3] == '-' && t[n - 2] == '0') {
      out.append(t.substr(0, n - 2));
      out.push_back(t[n - 1]);
    } else {
      out.append(t);
    }
    return;
  }
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  out.append(buf, r.ptr);
}

}  // namespace json

namespace {

void key(std::string& out, std::string_view k) {
  out.push_back('"');
  out.append(k);
  out += "\":";
}

void field(std::string& out, std::string_view k, std::string_view v) {
  key(out, k);
  json::append_string(out, v);
  out.push_back(',');
}

void field(std::string& out, std::string_view k, std::int64_t v) {
  key(out, k);
  out += std::to_string(v);
  out.push_back(',');
}

void field(std::string& out, std::string_view k, std::uint64_t v) {
  key(out, k);
  out += std::to_string(v);
  out.push_back(',');
}

void field(std::string& out, std::string_view k, bool v) {
  key(out, k);
  out += v ? "true" : "false";
  out.push_back(',');
}

// Replaces the trailing ',' of the last field with the closing bracket.
void close(std::string& out, char bracket) {
  if (!out.empty() && out.back() == ',') {
    out.back() = bracket;
  } else {
    out.push_back(bracket);
  }
}

void append_latency(std::string& out, const stats::Latency& l) {
  out += "{\"count\":";
  out += std::to_string(l.count);
  out += ",\"percentiles\":";
  if (!l.configured) {
    out += "null}";
    return;
  }
  out.push_back('[');
  for (const auto& [q, v] : l.percentiles) {
    // Go renders map[string]float64: keys sorted, "quantile" < "value".
    out += "{\"quantile\":";
    json::append_double(out, q);
    out += ",\"value\":";
    json::append_double(out, v);
    out += "},";
  }
  close(out, ']');
  out.push_back('}');
}

void append_client(std::string& out, const stats::Client& c) {
  out.push_back('{');
  field(out, "client_id", c.client_id);
  field(out, "hostname", c.hostname);
  field(out, "version", c.version);
  field(out, "remote_address", c.remote_address);
  field(out, "state", static_cast<std::int64_t>(c.state));
  field(out, "ready_count", c.ready_count);
  field(out, "in_flight_count", c.in_flight_count);
  field(out, "message_count", c.message_count);
  field(out, "finish_count", c.finish_count);
  field(out, "requeue_count", c.requeue_count);
  field(out, "connect_ts", c.connect_ts);
  field(out, "sample_rate", c.sample_rate);
  field(out, "deflate", c.deflate);
  field(out, "snappy", c.snappy);
  field(out, "user_agent", c.user_agent);
  if (c.authed) field(out, "authed", true);
  if (!c.auth_identity.empty()) field(out, "auth_identity", c.auth_identity);
  if (!c.auth_identity_url.empty()) field(out, "auth_identity_url", c.auth_identity_url);
  if (!c.pub_counts.empty()) {
    key(out, "pub_counts");
    out.push_back('[');
    for (const auto& p : c.pub_counts) {
      out.push_back('{');
      field(out, "topic", p.topic);
      field(out, "count", p.count);
      close(out, '}');
      out.push_back(',');
    }
    close(out, ']');
    out.push_back(',');
  }
  field(out, "tls", c.tls);
  field(out, "tls_cipher_suite", c.tls_cipher_suite);
  field(out, "tls_version", c.tls_version);
  field(out, "tls_negotiated_protocol", c.tls_negotiated_protocol);
  field(out, "tls_negotiated_protocol_is_mutual", c.tls_negotiated_protocol_is_mutual);
  close(out, '}');
}

// A JSON array of clients; null when clients were not requested.
void append_clients(std::string& out, const std::vector<stats::Client>& clients, bool included) {
  if (!included) {
    out += "null";
    return;
  }
  out.push_back('[');
  for (const auto& c : clients) {
    append_client(out, c);
    out.push_back(',');
  }
  close(out, ']');
}

void append_channel(std::string& out, const stats::Channel& c, bool include_clients) {
  out.push_back('{');
  field(out, "channel_name", c.name);
  field(out, "depth", c.depth);
  field(out, "backend_depth", c.backend_depth);
  field(out, "in_flight_count", c.in_flight_count);
  field(out, "deferred_count", c.deferred_count);
  field(out, "message_count", c.message_count);
  field(out, "requeue_count", c.requeue_count);
  field(out, "timeout_count", c.timeout_count);
  field(out, "client_count", c.client_count);
  key(out, "clients");
  append_clients(out, c.clients, include_clients);
  out.push_back(',');
  field(out, "paused", c.paused);
  key(out, "e2e_processing_latency");
  append_latency(out, c.e2e);
  out.push_back('}');
}

void append_topic(std::string& out, const stats::Topic& t, bool include_clients) {
  out.push_back('{');
  field(out, "topic_name", t.name);
  key(out, "channels");
  out.push_back('[');
  for (const auto& c : t.channels) {
    append_channel(out, c, include_clients);
    out.push_back(',');
  }
  close(out, ']');
  out.push_back(',');
  field(out, "depth", t.depth);
  field(out, "backend_depth", t.backend_depth);
  field(out, "message_count", t.message_count);
  field(out, "message_bytes", t.message_bytes);
  field(out, "paused", t.paused);
  key(out, "e2e_processing_latency");
  append_latency(out, t.e2e);
  out.push_back('}');
}

void append_memory(std::string& out, const stats::Memory& m) {
  out.push_back('{');
  field(out, "heap_objects", m.heap_objects);
  field(out, "heap_idle_bytes", m.heap_idle_bytes);
  field(out, "heap_in_use_bytes", m.heap_in_use_bytes);
  field(out, "heap_released_bytes", m.heap_released_bytes);
  field(out, "gc_pause_usec_100", m.gc_pause_usec_100);
  field(out, "gc_pause_usec_99", m.gc_pause_usec_99);
  field(out, "gc_pause_usec_95", m.gc_pause_usec_95);
  field(out, "next_gc_bytes", m.next_gc_bytes);
  field(out, "gc_total_runs", m.gc_total_runs);
  close(out, '}');
}

}  // namespace

std::string render_stats_json(const stats::Snapshot& s) {
  std::string out;
  out.reserve(512);
  out.push_back('{');
  field(out, "version", s.version);
  field(out, "health", s.health);
  field(out, "start_time", s.start_time);
  key(out, "topics");
  if (s.topics_null) {
    out += "null";
  } else {
    out.push_back('[');
    for (const auto& t : s.topics) {
      append_topic(out, t, s.include_clients);
      out.push_back(',');
    }
    close(out, ']');
  }
  out.push_back(',');
  if (s.memory) {
    key(out, "memory");
    append_memory(out, *s.memory);
    out.push_back(',');
  }
  // Go appends producers to a nil slice: null when there are none (and when
  // clients were not requested).
  key(out, "producers");
  append_clients(out, s.producers, s.include_clients && !s.producers.empty());
  out.push_back('}');
  return out;
}

}  // namespace nsq::nsqd
