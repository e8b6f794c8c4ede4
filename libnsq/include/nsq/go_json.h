#pragma once

#include <algorithm>
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

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// The length of the JSON number at json[at]
// (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), or 0 if none starts there.
inline std::size_t number_length(std::string_view json, std::size_t at) noexcept {
  std::size_t i = at;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < json.size() && is_digit(json[i])) ++i;
    return i > from;
  };
  if (i < json.size() && json[i] == '-') ++i;
  if (i < json.size() && json[i] == '0') {
    ++i;
  } else if (!digits()) {
    return 0;
  }
  if (i + 1 < json.size() && json[i] == '.' && is_digit(json[i + 1])) {
    ++i;
    digits();
  }
  if (i < json.size() && (json[i] == 'e' || json[i] == 'E')) {
    std::size_t mark = i++;
    if (i < json.size() && (json[i] == '+' || json[i] == '-')) ++i;
    if (!digits()) i = mark;
  }
  return i - at;
}

// Whether RapidJSON could refuse the number (too big for a double: about
// 300 integer digits, or a positive exponent near 308), generously.
inline bool may_overflow_double(std::string_view number) noexcept {
  const std::size_t e = number.find_first_of("eE");
  const std::string_view mantissa = number.substr(0, e);
  const std::size_t integer_digits =
      mantissa.find('.') == std::string_view::npos ? mantissa.size() : mantissa.find('.');
  if (integer_digits > 290) return true;
  if (e == std::string_view::npos) return false;
  std::string_view exponent = number.substr(e + 1);
  if (exponent.starts_with('-')) return false;
  if (exponent.starts_with('+')) exponent.remove_prefix(1);
  exponent.remove_prefix(std::min(exponent.find_first_not_of('0'), exponent.size()));
  return exponent.size() > 2 && (exponent.size() > 3 || exponent >= "290");
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

// Go's scanner takes any number (1e999, a thousand digits); RapidJSON
// refuses one too big for a double even when it passes numbers as text.
// Each number outside a string for which `replace(number)` holds becomes
// "0e0" (keeping its sign; "0" when shorter) padded with spaces: the same
// offsets, still valid JSON, and a number that is no integer stays none (an
// integer field refuses it, as Go refuses 1e999 there). nullopt when
// nothing was replaced.
template <class Predicate>
std::optional<std::string> replace_numbers(std::string_view json, Predicate replace) {
  std::optional<std::string> out;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    if (c != '-' && !detail::is_digit(c)) continue;
    const std::size_t n = detail::number_length(json, i);
    if (n == 0) continue;
    if (!replace(json.substr(i, n))) {
      i += n - 1;
      continue;
    }
    if (!out) out.emplace(json);
    const std::size_t sign = c == '-' ? 1 : 0;  // kept: "--1" must not become "-0"
    std::string_view zero = "0e0";
    const std::size_t room = n - sign;
    if (room < zero.size()) zero = "0";
    std::copy(zero.begin(), zero.end(), out->begin() + static_cast<std::ptrdiff_t>(i + sign));
    std::fill_n(out->begin() + static_cast<std::ptrdiff_t>(i + sign + zero.size()),
                room - zero.size(), ' ');
    i += n - 1;
  }
  return out;
}

// The numbers RapidJSON would refuse, as replace_numbers() rewrites them.
inline std::optional<std::string> tame_big_numbers(std::string_view json) {
  return replace_numbers(json, detail::may_overflow_double);
}

}  // namespace nsq::go_json
