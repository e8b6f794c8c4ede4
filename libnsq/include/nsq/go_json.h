#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

// What Go's encoding/json does that RapidJSON does not, for the decoders that
// must accept and refuse the JSON Go nsqd v1.3.0 and nsqlookupd do (IDENTIFY,
// nsqlookupd's REGISTER/IDENTIFY, nsqd.dat). Those binaries are built with Go
// 1.19, whose rules are the ones followed here.
// Header-only: small, and shared by nsq::wire, nsq::nsqd and nsq::lookupd.
namespace nsq::go_json {

// Go's scanner refuses nesting deeper than this, arrays and objects alike
// ("invalid character '[' exceeded max depth"). RapidJSON has no limit: its
// users parse iteratively (kParseIterativeFlag) and count.
inline constexpr int kMaxDepth = 10000;

// Whether json.Unmarshal stores the value of object key `key` (as decoded)
// in the struct field named `name` (ASCII): an exact match or Go 1.19's
// fold, which is ASCII case folding where U+017F (long s) also matches an
// s and U+212A (Kelvin sign) a k. (Go 1.21 also takes U+0131, dotless i,
// for an i; Go 1.19 does not.) A key given twice is stored twice: the last wins.
constexpr bool key_matches(std::string_view key, std::string_view name) noexcept {
  constexpr auto lower = [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  };
  std::size_t i = 0;
  for (char c : name) {
    const char want = lower(c);
    if (i == key.size()) return false;
    if (static_cast<unsigned char>(key[i]) < 0x80) {
      if (lower(key[i]) != want) return false;
      ++i;
      continue;
    }
    const std::string_view rest = key.substr(i);
    if (want == 's' && rest.starts_with("\xc5\xbf")) {
      i += 2;
    } else if (want == 'k' && rest.starts_with("\xe2\x84\xaa")) {
      i += 3;
    } else {
      return false;
    }
  }
  return i == key.size();
}

namespace detail {

// The UTF-16 code unit of the \uXXXX escape at json[at] ("\\u" then four hex
// digits), or -1.
inline int utf16_escape_at(std::string_view json, std::size_t at) noexcept {
  if (at + 6 > json.size() || json[at] != '\\' || json[at + 1] != 'u') return -1;
  int unit = 0;
  auto [end, ec] = std::from_chars(json.data() + at + 2, json.data() + at + 6, unit, 16);
  return ec == std::errc() && end == json.data() + at + 6 ? unit : -1;
}

constexpr bool is_high_surrogate(int u) noexcept { return u >= 0xD800 && u <= 0xDBFF; }
constexpr bool is_low_surrogate(int u) noexcept { return u >= 0xDC00 && u <= 0xDFFF; }

}  // namespace detail

// Go's encoding/json decodes an escaped UTF-16 surrogate that is not half of
// a pair as U+FFFD; RapidJSON refuses the document. Such escapes are
// rewritten to \ufffd first; nullopt when there is none (the usual case).
inline std::optional<std::string> replace_lone_surrogate_escapes(std::string_view json) {
  std::optional<std::string> out;
  bool in_string = false;
  std::size_t copied = 0;  // json[0, copied) is in *out
  for (std::size_t i = 0; i < json.size(); ++i) {
    char c = json[i];
    if (!in_string) {
      in_string = c == '"';
      continue;
    }
    if (c == '"') {
      in_string = false;
    } else if (c == '\\') {
      int unit = detail::utf16_escape_at(json, i);
      if (unit < 0) {
        ++i;  // a two-character escape (or a broken one, left for the parser)
        continue;
      }
      if (detail::is_high_surrogate(unit) &&
          detail::is_low_surrogate(detail::utf16_escape_at(json, i + 6))) {
        i += 11;  // a valid pair
        continue;
      }
      if (detail::is_high_surrogate(unit) || detail::is_low_surrogate(unit)) {
        if (!out) out.emplace();
        out->append(json.substr(copied, i - copied));
        out->append("\\ufffd");
        copied = i + 6;
      }
      i += 5;
    }
  }
  if (out) out->append(json.substr(copied));
  return out;
}

}  // namespace nsq::go_json
