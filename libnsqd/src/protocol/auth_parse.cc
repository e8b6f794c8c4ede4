#include "protocol/auth.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <vector>

// The auth module's parsers of outside input, apart from its HTTP queries so
// that they build and fuzz without Asio or OpenSSL: the auth server's JSON
// reply and the --auth-http-address values.
namespace nsq::nsqd::auth {

namespace {

constexpr std::size_t kMaxPatternLength = 1000;
constexpr int kMaxRepeatCount = 1000;  // Go's regexp limit
// Sequential repetitions cost up to n^k steps on a name of n <= 64 bytes.
constexpr int kMaxRepetitions = 4;

// std::regex backtracks, so nested repetition (`z**`, `(a*)*`) can take
// exponential time even on a short topic name: a hostile or broken auth
// server must not be able to stall nsqd. Go's RE2 refuses a repetition
// operator applied to another one ("invalid nested repetition operator")
// and repeat counts above 1000; we refuse those too, and also what RE2
// would run in linear time but std::regex cannot: a repeated group that
// itself repeats or alternates, and more than four repetitions in all.
// Returns the reason, or empty when the pattern is acceptable.
std::string repetition_problem(const std::string& p) {
  if (p.size() > kMaxPatternLength) return "regexp too long";
  struct Group {
    bool repeats = false;
    bool alternates = false;
  };
  int repetitions = 0;
  std::vector<Group> groups(1);
  bool after_quantifier = false, lazy_done = false;
  bool after_group = false, group_repeated = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    bool quantifier =
        c == '*' || c == '+' || c == '?' ||
        (c == '{' && i + 1 < p.size() && std::isdigit(static_cast<unsigned char>(p[i + 1])));
    if (quantifier) {
      if (after_quantifier) {
        if (c == '?' && !lazy_done) {  // `*?`: the lazy form, not a repetition
          lazy_done = true;
          continue;
        }
        return "invalid nested repetition operator";
      }
      if (after_group && group_repeated) return "nested repetition in a group";
      if (++repetitions > kMaxRepetitions) return "too many repetitions";
      if (c == '{') {
        std::size_t close = p.find('}', i);
        if (close == std::string::npos) return "missing closing }";
        int count = 0;
        for (std::size_t j = i + 1; j < close; ++j) {
          if (std::isdigit(static_cast<unsigned char>(p[j]))) {
            count = std::min(count * 10 + (p[j] - '0'), kMaxRepeatCount + 1);
            if (count > kMaxRepeatCount) return "invalid repeat count";
          } else {
            count = 0;  // the comma between the bounds
          }
        }
        i = close;
      }
      groups.back().repeats = true;
      after_quantifier = true;
      lazy_done = false;
      after_group = false;
      continue;
    }
    after_quantifier = false;
    after_group = false;
    if (c == '\\') {
      ++i;  // an escaped character is a literal (or a class like \d)
    } else if (c == '[') {
      std::size_t j = i + 1;
      if (j < p.size() && p[j] == '^') ++j;
      if (j < p.size() && p[j] == ']') ++j;
      while (j < p.size() && p[j] != ']') j += p[j] == '\\' ? 2 : 1;
      i = j;
    } else if (c == '(') {
      groups.push_back({});
    } else if (c == '|') {
      groups.back().alternates = true;
    } else if (c == ')' && groups.size() > 1) {
      Group closed = groups.back();
      groups.pop_back();
      group_repeated = closed.repeats || closed.alternates;
      if (closed.repeats) groups.back().repeats = true;
      after_group = true;
    }
  }
  return {};
}

// Go's regexp (RE2) and ECMAScript agree on the patterns auth servers use
// (literals, ., *, +, ?, classes, anchors, alternation); a pattern std::regex
// rejects is rejected here as Go rejects one it cannot compile.
tl::expected<std::regex, std::string> compile(const std::string& pattern) {
  if (std::string problem = repetition_problem(pattern); !problem.empty())
    return tl::unexpected(problem + " in `" + pattern + "`");
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return tl::unexpected(std::string(e.what()));
  }
}

bool search(const std::regex& re, std::string_view s) {
  return std::regex_search(s.begin(), s.end(), re);
}

}  // namespace

bool State::allows(std::string_view topic, std::string_view channel) const {
  for (const Authorization& a : authorizations) {
    if (channel.empty() ? !a.publish : !a.subscribe) continue;
    if (!search(a.topic, topic)) continue;
    for (const std::regex& c : a.channels) {
      if (search(c, channel)) return true;
    }
  }
  return false;
}

tl::expected<State, std::string> parse_reply(std::string_view body,
                                             std::chrono::steady_clock::time_point now) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return tl::unexpected(std::string("invalid JSON"));
  State state;
  auto string_field = [&](const char* key, std::string& out) -> bool {
    auto it = doc.FindMember(key);
    if (it == doc.MemberEnd() || it->value.IsNull()) return true;
    if (!it->value.IsString()) return false;
    out.assign(it->value.GetString(), it->value.GetStringLength());
    return true;
  };
  if (!string_field("identity", state.identity) ||
      !string_field("identity_url", state.identity_url)) {
    return tl::unexpected(std::string("invalid JSON: identity"));
  }
  std::int64_t ttl = 0;
  if (auto it = doc.FindMember("ttl"); it != doc.MemberEnd() && !it->value.IsNull()) {
    if (!it->value.IsInt64()) return tl::unexpected(std::string("invalid JSON: ttl"));
    ttl = it->value.GetInt64();
  }
  if (auto it = doc.FindMember("authorizations"); it != doc.MemberEnd() && !it->value.IsNull()) {
    if (!it->value.IsArray()) return tl::unexpected(std::string("invalid JSON: authorizations"));
    for (const auto& entry : it->value.GetArray()) {
      if (!entry.IsObject()) return tl::unexpected(std::string("invalid JSON: authorization"));
      Authorization a;
      if (auto t = entry.FindMember("topic"); t != entry.MemberEnd() && !t->value.IsNull()) {
        if (!t->value.IsString()) return tl::unexpected(std::string("invalid JSON: topic"));
        a.topic_pattern.assign(t->value.GetString(), t->value.GetStringLength());
      }
      if (auto p = entry.FindMember("permissions"); p != entry.MemberEnd() && !p->value.IsNull()) {
        if (!p->value.IsArray()) return tl::unexpected(std::string("invalid JSON: permissions"));
        for (const auto& perm : p->value.GetArray()) {
          if (!perm.IsString()) return tl::unexpected(std::string("invalid JSON: permission"));
          std::string_view name(perm.GetString(), perm.GetStringLength());
          if (name == "publish") {
            a.publish = true;
          } else if (name == "subscribe") {
            a.subscribe = true;
          } else {
            return tl::unexpected("unknown permission " + std::string(name));
          }
        }
      }
      auto topic = compile(a.topic_pattern);
      if (!topic) {
        return tl::unexpected("unable to compile topic \"" + a.topic_pattern + "\" " +
                              topic.error());
      }
      a.topic = std::move(*topic);
      if (auto c = entry.FindMember("channels"); c != entry.MemberEnd() && !c->value.IsNull()) {
        if (!c->value.IsArray()) return tl::unexpected(std::string("invalid JSON: channels"));
        for (const auto& ch : c->value.GetArray()) {
          if (!ch.IsString()) return tl::unexpected(std::string("invalid JSON: channel"));
          std::string pattern(ch.GetString(), ch.GetStringLength());
          auto re = compile(pattern);
          if (!re)
            return tl::unexpected("unable to compile channel \"" + pattern + "\" " + re.error());
          a.channels.push_back(std::move(*re));
        }
      }
      state.authorizations.push_back(std::move(a));
    }
  }
  if (ttl <= 0) return tl::unexpected("invalid TTL " + std::to_string(ttl) + " (must be >0)");
  // A ttl of centuries would overflow the clock's nanoseconds: a year is
  // long enough to mean "until the next restart".
  constexpr std::int64_t kMaxTtlSeconds = 365LL * 24 * 3600;
  state.expires = now + std::chrono::seconds(std::min(ttl, kMaxTtlSeconds));
  return state;
}

tl::expected<Endpoint, std::string> parse_address(const std::string& address) {
  Endpoint ep;
  std::string_view rest = address;
  if (auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    std::string_view name = rest.substr(0, scheme);
    if (name != "http" && name != "https") {
      return tl::unexpected("unsupported auth URL scheme in " + address);
    }
    ep.https = name == "https";
    rest.remove_prefix(scheme + 3);
    auto slash = rest.find('/');
    ep.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
    rest = rest.substr(0, slash);
  } else {
    ep.path = "/auth";
  }
  auto colon = rest.rfind(':');
  // (A colon inside [v6] brackets is not a port separator.)
  if (colon != std::string_view::npos && rest.find(']', colon) != std::string_view::npos) {
    colon = std::string_view::npos;
  }
  std::string_view port =
      colon == std::string_view::npos ? (ep.https ? "443" : "80") : rest.substr(colon + 1);
  std::string_view host = colon == std::string_view::npos ? rest : rest.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned value = 0;
  if (port.empty() || port.size() > 5) return tl::unexpected("invalid port in " + address);
  for (char c : port) {
    if (c < '0' || c > '9') return tl::unexpected("invalid port in " + address);
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535 || host.empty()) {
    return tl::unexpected("invalid address " + address);
  }
  ep.host = std::string(host);
  ep.port = static_cast<std::uint16_t>(value);
  return ep;
}

}  // namespace nsq::nsqd::auth
