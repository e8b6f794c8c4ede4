#include "http/target.h"

namespace nsq::http::detail {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> unescape(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (s.size() - i < 3) return std::nullopt;
      int hi = hex_value(s[i + 1]);
      int lo = hex_value(s[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<Target> parse_target(std::string_view target) {
  if (target == "*") return Target{"*", ""};
  std::string_view rest = target;
  if (rest.empty()) return std::nullopt;
  if (rest.front() != '/') {
    // Absolute form: scheme "://" authority [path] ["?" query].
    auto sep = rest.find("://");
    if (sep == std::string_view::npos || sep == 0) return std::nullopt;
    for (char c : rest.substr(0, sep)) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '+' || c == '-' || c == '.';
      if (!ok) return std::nullopt;
    }
    rest.remove_prefix(sep + 3);
    auto start = rest.find_first_of("/?");
    rest = start == std::string_view::npos ? std::string_view{} : rest.substr(start);
  }
  Target out;
  auto q = rest.find('?');
  std::string_view raw_path = rest.substr(0, q);
  if (q != std::string_view::npos) out.raw_query = std::string(rest.substr(q + 1));
  auto path = unescape(raw_path, false);
  if (!path) return std::nullopt;
  out.path = path->empty() ? "/" : std::move(*path);
  return out;
}

Query parse_query(std::string_view raw) {
  Query out;
  while (!raw.empty()) {
    auto amp = raw.find('&');
    std::string_view pair = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view{} : raw.substr(amp + 1);
    if (pair.find(';') != std::string_view::npos) {
      out.bad = true;
      continue;
    }
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    auto key = unescape(pair.substr(0, eq), true);
    auto value =
        unescape(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1), true);
    if (!key || !value) {
      out.bad = true;
      continue;
    }
    out.pairs.emplace_back(std::move(*key), std::move(*value));
  }
  return out;
}

}  // namespace nsq::http::detail
