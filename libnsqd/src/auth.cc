#include "auth.h"

#include <rapidjson/document.h>

#include <cstdio>
#include <optional>

#include "https_get.h"
#include "nsq/http/client.h"

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

// {"message": "TLS_REQUIRED", "https_port": N}
std::optional<std::uint16_t> https_port_of(const std::string& body) {
  rapidjson::Document doc;
  doc.Parse(body.c_str());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  auto it = doc.FindMember("https_port");
  if (it == doc.MemberEnd() || !it->value.IsInt()) return std::nullopt;
  int port = it->value.GetInt();
  if (port <= 0 || port > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(port);
}

bool search(const std::regex& re, std::string_view s) {
  return std::regex_search(s.begin(), s.end(), re);
}

// url.QueryEscape: unreserved bytes stay, space becomes '+', the rest %XX.
void append_escaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
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

std::string query_string(std::string_view secret, std::string_view remote_ip, bool tls,
                         std::string_view common_name) {
  std::string q = "common_name=";
  append_escaped(q, common_name);
  q += "&remote_ip=";
  append_escaped(q, remote_ip);
  q += "&secret=";
  append_escaped(q, secret);
  q += tls ? "&tls=true" : "&tls=false";
  return q;
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

tl::expected<State, std::string> query_any(const std::vector<std::string>& addresses,
                                           std::size_t start, const std::string& query,
                                           const QueryOptions& options,
                                           std::vector<std::string>& failures) {
  const std::size_t n = addresses.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& address = addresses[(start + i) % n];
    auto ep = parse_address(address);
    if (!ep) {
      failures.push_back("failed auth against " + address + " " + ep.error());
      continue;
    }
    std::string target = ep->path + (ep->path.find('?') == std::string::npos ? "?" : "&") + query;
    auto resp = ep->https
                    ? https_get(ep->host, ep->port, target, options.root_ca_file,
                                options.connect_timeout, options.request_timeout, options.max_body)
                    : http::get(ep->host, ep->port, target, options.connect_timeout,
                                options.request_timeout, options.max_body);
    // As Go's client: a plain server that answers 403 with an https_port
    // (an nsqd-style TLS_REQUIRED) is asked again over https on that port.
    if (resp && !ep->https && resp->status == 403) {
      if (auto https_port = https_port_of(resp->body)) {
        resp = https_get(ep->host, *https_port, target, options.root_ca_file,
                         options.connect_timeout, options.request_timeout, options.max_body);
      }
    }
    if (!resp) {
      failures.push_back("failed auth against " + address + " " + resp.error());
      continue;
    }
    if (resp->status != 200) {
      failures.push_back("failed auth against " + address + " got response " +
                         std::to_string(resp->status));
      continue;
    }
    auto state = parse_reply(resp->body, std::chrono::steady_clock::now());
    if (!state) {
      failures.push_back("failed auth against " + address + " " + state.error());
      continue;
    }
    return state;
  }
  return tl::unexpected(std::string("Failed to Authenticate"));
}

}  // namespace nsq::nsqd::auth
