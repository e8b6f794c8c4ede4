#include "nsq/flags/go_strconv.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <system_error>

#include "nsq/utf8.h"

namespace nsq::flags {
namespace {

constexpr char lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Go's strconv.underscoreOK: '_' only between digits (or after a base prefix).
bool underscore_ok(std::string_view s) noexcept {
  char saw = '^';
  std::size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0' &&
      (lower(s[1]) == 'b' || lower(s[1]) == 'o' || lower(s[1]) == 'x')) {
    i = 2;
    saw = '0';
    hex = lower(s[1]) == 'x';
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if ((c >= '0' && c <= '9') || (hex && lower(c) >= 'a' && lower(c) <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

// Go's strconv.ParseUint(s, base, 64) with base 0 or 10.
tl::expected<std::uint64_t, NumError> parse_go_uint(std::string_view s, int base) {
  if (s.empty()) return tl::unexpected(NumError::syntax);
  const std::string_view s0 = s;
  const bool base0 = base == 0;
  if (base0) {
    base = 10;
    if (s[0] == '0') {
      if (s.size() >= 3 && lower(s[1]) == 'b') {
        base = 2;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && lower(s[1]) == 'o') {
        base = 8;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && lower(s[1]) == 'x') {
        base = 16;
        s.remove_prefix(2);
      } else {
        base = 8;
        s.remove_prefix(1);
      }
    }
  }
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t cutoff = kMax / static_cast<std::uint64_t>(base) + 1;
  std::uint64_t n = 0;
  bool underscores = false;
  for (const char c : s) {
    int d = 0;
    if (c == '_' && base0) {
      underscores = true;
      continue;
    }
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (lower(c) >= 'a' && lower(c) <= 'z') {
      d = lower(c) - 'a' + 10;
    } else {
      return tl::unexpected(NumError::syntax);
    }
    if (d >= base) return tl::unexpected(NumError::syntax);
    if (n >= cutoff) return tl::unexpected(NumError::range);
    n *= static_cast<std::uint64_t>(base);
    const std::uint64_t n1 = n + static_cast<std::uint64_t>(d);
    if (n1 < n) return tl::unexpected(NumError::range);
    n = n1;
  }
  if (underscores && !underscore_ok(s0)) return tl::unexpected(NumError::syntax);
  return n;
}

}  // namespace

std::string_view describe(NumError e) noexcept {
  return e == NumError::range ? "value out of range" : "parse error";
}

tl::expected<bool, NumError> parse_go_bool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") {
    return true;
  }
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") {
    return false;
  }
  return tl::unexpected(NumError::syntax);
}

tl::expected<std::int64_t, NumError> parse_go_int(std::string_view s, int base) {
  if (s.empty()) return tl::unexpected(NumError::syntax);
  bool neg = false;
  std::string_view digits = s;
  if (digits[0] == '+' || digits[0] == '-') {
    neg = digits[0] == '-';
    digits.remove_prefix(1);
  }
  auto un = parse_go_uint(digits, base);
  if (!un) return tl::unexpected(un.error());
  constexpr std::uint64_t kCutoff = std::uint64_t{1} << 63;
  if (!neg && *un >= kCutoff) return tl::unexpected(NumError::range);
  if (neg && *un > kCutoff) return tl::unexpected(NumError::range);
  if (neg) return static_cast<std::int64_t>(0 - *un);
  return static_cast<std::int64_t>(*un);
}

tl::expected<double, NumError> parse_go_float(std::string_view s) {
  if (s.empty()) return tl::unexpected(NumError::syntax);
  bool neg = false;
  std::string_view body = s;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (iequals(body, "nan")) {
    // Go accepts "NaN" but not "-NaN"; a sign makes it a syntax error.
    if (body.size() != s.size()) return tl::unexpected(NumError::syntax);
    return std::numeric_limits<double>::quiet_NaN();
  }
  // from_chars has its own spellings of inf/nan and hex; only let digits in.
  if (body.empty() || !((body[0] >= '0' && body[0] <= '9') || body[0] == '.')) {
    return tl::unexpected(NumError::syntax);
  }
  if (body.size() >= 2 && body[0] == '0' && lower(body[1]) == 'x') {
    return tl::unexpected(NumError::syntax);
  }
  double v = 0;
  const auto [ptr, ec] =
      std::from_chars(body.data(), body.data() + body.size(), v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range && ptr == body.data() + body.size()) {
    // Go: overflow is ErrRange, underflow quietly rounds towards 0.
    const auto epos = body.find_first_of("eE");
    const bool tiny =
        epos != std::string_view::npos && epos + 1 < body.size() && body[epos + 1] == '-';
    if (tiny) return neg ? -0.0 : 0.0;
    return tl::unexpected(NumError::range);
  }
  if (ec != std::errc{} || ptr != body.data() + body.size()) {
    return tl::unexpected(NumError::syntax);
  }
  return neg ? -v : v;
}

std::string format_go_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  // Shortest digits in scientific form tell us the decimal exponent.
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);
  const auto epos = sci.find('e');
  const int exp = std::stoi(sci.substr(epos + 1));
  if (exp < -4 || exp >= 21) {
    // Go writes at least two exponent digits: 1e-07, 1e+21.
    std::string mant = sci.substr(0, epos);
    const char sign = exp < 0 ? '-' : '+';
    const int aexp = exp < 0 ? -exp : exp;
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", sign, aexp);
    return mant + ebuf;
  }
  r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (c >= 0x80) {
          // Valid UTF-8 passes through (Go prints printable runes); a byte
          // that starts no valid sequence is escaped, as Go's %q does.
          if (std::size_t len = utf8::sequence_length(s, i)) {
            out.append(s.substr(i, len));
            i += len - 1;
            break;
          }
        }
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace nsq::flags
