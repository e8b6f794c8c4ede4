#include "nsq/http/router.h"

#include <algorithm>
#include <cctype>

namespace nsq::http {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Matches `path` against `pattern`; `fold` ignores ASCII case in the static
// parts. On success `out` (if set) gets the route's spelling with the
// request's parameter value, and `param` the value.
bool match_pattern(std::string_view pattern, std::string_view path, bool fold, std::string* out,
                   std::string* param) {
  std::string built;
  std::size_t i = 0, j = 0;
  while (i < pattern.size()) {
    if (pattern[i] == ':') {
      std::size_t end = path.find('/', j);
      if (end == std::string_view::npos) end = path.size();
      if (end == j) return false;  // a parameter is never empty
      std::string_view value = path.substr(j, end - j);
      if (param) *param = std::string(value);
      built += value;
      j = end;
      i = pattern.find('/', i);
      if (i == std::string_view::npos) i = pattern.size();
      continue;
    }
    if (j >= path.size()) return false;
    if (fold ? lower(pattern[i]) != lower(path[j]) : pattern[i] != path[j]) return false;
    built += pattern[i];
    ++i;
    ++j;
  }
  if (j != path.size()) return false;
  if (out) *out = std::move(built);
  return true;
}

// httprouter's CleanPath: rooted, "." and ".." resolved, doubled slashes
// removed, a trailing slash (or a final ".") kept.
std::string router_clean(std::string_view p) {
  if (p.empty()) return "/";
  bool trailing = p.size() > 1 && p.back() == '/';
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos <= p.size()) {
    std::size_t end = p.find('/', pos);
    if (end == std::string_view::npos) end = p.size();
    std::string_view part = p.substr(pos, end - pos);
    bool last = end == p.size();
    if (part == ".") {
      if (last) trailing = true;
    } else if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty()) {
      parts.push_back(part);
    }
    pos = end + 1;
  }
  std::string out;
  for (auto part : parts) {
    out += '/';
    out += part;
  }
  if (out.empty()) return "/";
  if (trailing) out += '/';
  return out;
}

const char kHex[] = "0123456789ABCDEF";

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_path(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    bool keep =
        std::isalnum(c) || std::string_view("-_.~$&+,/:;=@").find(ch) != std::string_view::npos;
    if (keep && c < 0x80) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string clean_path(std::string_view path) {
  if (path.empty()) return ".";
  bool rooted = path.front() == '/';
  std::vector<std::string_view> parts;
  std::size_t dotdots = 0;  // leading ".." kept in a relative path
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t end = path.find('/', pos);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(pos, end - pos);
    if (part == "..") {
      if (parts.size() > dotdots) {
        parts.pop_back();
      } else if (!rooted) {
        parts.push_back(part);
        ++dotdots;
      }
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = end + 1;
  }
  std::string out = rooted ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out.empty() ? "." : out;
}

void Router::add(std::string method, std::string pattern, int id) {
  routes_.push_back(Route{std::move(method), std::move(pattern), id});
}

bool Router::has_method(std::string_view method) const {
  return std::any_of(routes_.begin(), routes_.end(),
                     [&](const Route& r) { return r.method == method; });
}

const Router::Route* Router::match(std::string_view method, std::string_view path,
                                   std::string* param) const {
  for (const Route& r : routes_) {
    if (r.method == method && match_pattern(r.pattern, path, false, nullptr, param)) return &r;
  }
  return nullptr;
}

std::string Router::fix_case(std::string_view method, std::string_view path) const {
  auto find = [&](std::string_view p) -> std::string {
    for (const Route& r : routes_) {
      std::string out;
      if (r.method == method && match_pattern(r.pattern, p, true, &out, nullptr)) return out;
    }
    return {};
  };
  std::string found = find(path);
  if (!found.empty()) return found;
  if (path.size() > 1 && path.back() == '/') return find(path.substr(0, path.size() - 1));
  return find(std::string(path) + "/");
}

std::string Router::allowed(std::string_view path, std::string_view method) const {
  std::vector<std::string> methods;
  for (const Route& r : routes_) {
    if (r.method == "OPTIONS") continue;
    if (std::find(methods.begin(), methods.end(), r.method) != methods.end()) continue;
    bool include =
        path == "*" ? true : r.method != method && match(r.method, path, nullptr) != nullptr;
    if (include) methods.push_back(r.method);
  }
  if (methods.empty()) return {};
  methods.push_back("OPTIONS");
  std::sort(methods.begin(), methods.end());
  std::string out;
  for (const auto& m : methods) {
    if (!out.empty()) out += ", ";
    out += m;
  }
  return out;
}

Router::Result Router::route(const Request& req) const {
  Result result;
  const std::string& path = req.path;
  if (req.method == "OPTIONS" && req.target == "*") {
    // net/http answers "OPTIONS *" itself.
    result.kind = Result::Kind::options;
    result.response.content_type.clear();
    return result;
  }
  if (has_method(req.method)) {
    std::string param;
    if (const Route* r = match(req.method, path, &param)) {
      result.kind = Result::Kind::match;
      result.id = r->id;
      result.param = std::move(param);
      return result;
    }
    if (req.method != "CONNECT" && path != "/") {
      std::string fixed;
      if (path.size() > 1 && path.back() == '/' &&
          match(req.method, std::string_view(path).substr(0, path.size() - 1), nullptr)) {
        fixed = path.substr(0, path.size() - 1);
      } else if (match(req.method, path + "/", nullptr)) {
        fixed = path + "/";
      } else {
        fixed = fix_case(req.method, router_clean(path));
      }
      if (!fixed.empty()) {
        // The request's URL with the new path, as http.Redirect writes it.
        std::string location;
        std::string_view target = req.target;
        if (!target.empty() && target.front() != '/') {
          // Absolute form: scheme://authority kept as sent.
          auto sep = target.find("://");
          auto start = target.find_first_of("/?", sep + 3);
          location = std::string(
              target.substr(0, start == std::string_view::npos ? target.size() : start));
          location += escape_path(fixed);
        } else {
          std::string escaped = escape_path(fixed);
          bool trailing = escaped.size() > 1 && escaped.back() == '/';
          location = clean_path(escaped);
          if (trailing && location.back() != '/') location += '/';
        }
        if (!req.raw_query.empty() || target.find('?') != std::string_view::npos) {
          location += '?';
          location += req.raw_query;
        }
        const int status = req.method == "GET" ? 301 : 307;
        Response& r = result.response;
        r.status = status;
        r.headers.emplace_back("Location", location);
        r.content_type.clear();
        if (req.method == "GET" || req.method == "HEAD") {
          r.content_type = "text/html; charset=utf-8";
        }
        if (req.method == "GET") {
          r.body = "<a href=\"" + html_escape(location) + "\">" + std::string(status_text(status)) +
                   "</a>.\n\n";
        }
        result.kind = Result::Kind::redirect;
        return result;
      }
    }
  }
  if (req.method == "OPTIONS") {
    std::string allow = allowed(path, "OPTIONS");
    if (!allow.empty()) {
      result.kind = Result::Kind::options;
      result.response.content_type.clear();
      result.response.headers.emplace_back("Allow", std::move(allow));
      return result;
    }
  } else {
    std::string allow = allowed(path, req.method);
    if (!allow.empty()) {
      result.kind = Result::Kind::method_not_allowed;
      result.allow = std::move(allow);
      return result;
    }
  }
  result.kind = Result::Kind::not_found;
  return result;
}

}  // namespace nsq::http
