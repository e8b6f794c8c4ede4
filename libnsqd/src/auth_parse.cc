#include "auth.h"

#include <rapidjson/document.h>

// The auth module's parsers of outside input, apart from its HTTP queries so
// that they build and fuzz without Asio or OpenSSL: the auth server's JSON
// reply and the --auth-http-address values.
namespace nsq::nsqd::auth {

namespace {

// Go's regexp (RE2) and ECMAScript agree on the patterns auth servers use
// (literals, ., *, +, ?, classes, anchors, alternation); a pattern std::regex
// rejects is rejected here as Go rejects one it cannot compile.
tl::expected<std::regex, std::string> compile(const std::string& pattern) {
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
  state.expires = now + std::chrono::seconds(ttl);
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
