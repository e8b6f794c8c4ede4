#include "nsq/flags/go_duration.h"

#include <array>
#include <cstdint>
#include <optional>

namespace nsq::flags {
namespace {

constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;  // |min int64|

struct Unit {
  std::string_view name;
  std::uint64_t ns;
};

constexpr std::array<Unit, 8> kUnits{{
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1'000},  // U+03BC Greek mu
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
}};

std::optional<std::uint64_t> unit_ns(std::string_view name) {
  for (const Unit& u : kUnits) {
    if (u.name == name) return u.ns;
  }
  return std::nullopt;
}

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

std::string quote(std::string_view s) {
  std::string out = "\"";
  out += s;
  out += '"';
  return out;
}

std::string invalid(std::string_view orig) { return "time: invalid duration " + quote(orig); }

// Leading decimal integer; nullopt on overflow (Go's errLeadingInt).
std::optional<std::uint64_t> leading_int(std::string_view& s) {
  std::uint64_t x = 0;
  std::size_t i = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    if (x > kMaxMagnitude / 10) return std::nullopt;
    x = x * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (x > kMaxMagnitude) return std::nullopt;
  }
  s.remove_prefix(i);
  return x;
}

// Leading fraction digits; like Go, digits past the precision are dropped.
struct Fraction {
  std::uint64_t value = 0;
  double scale = 1;
};

Fraction leading_fraction(std::string_view& s) {
  Fraction f;
  std::size_t i = 0;
  bool overflow = false;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    if (overflow) continue;
    if (f.value > (kMaxMagnitude - 1) / 10) {
      overflow = true;
      continue;
    }
    const std::uint64_t y = f.value * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (y > kMaxMagnitude) {
      overflow = true;
      continue;
    }
    f.value = y;
    f.scale *= 10;
  }
  s.remove_prefix(i);
  return f;
}

// Writes v's fraction of `prec` digits, without trailing zeros, into the tail
// of buf ending at `w`; returns the new start and v / 10^prec.
std::size_t fmt_frac(char* buf, std::size_t w, std::uint64_t& v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const std::uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  return w;
}

std::size_t fmt_int(char* buf, std::size_t w, std::uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return w;
  }
  while (v > 0) {
    buf[--w] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return w;
}

}  // namespace

tl::expected<std::chrono::nanoseconds, std::string> parse_go_duration(std::string_view orig) {
  std::string_view s = orig;
  std::uint64_t d = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds{0};
  if (s.empty()) return tl::unexpected(invalid(orig));
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) return tl::unexpected(invalid(orig));
    std::size_t before = s.size();
    auto v = leading_int(s);
    if (!v) return tl::unexpected(invalid(orig));
    const bool pre = before != s.size();
    bool post = false;
    Fraction f;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      before = s.size();
      f = leading_fraction(s);
      post = before != s.size();
    }
    if (!pre && !post) return tl::unexpected(invalid(orig));  // "." alone
    std::size_t i = 0;
    while (i < s.size() && s[i] != '.' && !is_digit(s[i])) ++i;
    if (i == 0) return tl::unexpected("time: missing unit in duration " + quote(orig));
    const std::string_view unit_name = s.substr(0, i);
    s.remove_prefix(i);
    const auto unit = unit_ns(unit_name);
    if (!unit) {
      return tl::unexpected("time: unknown unit " + quote(unit_name) + " in duration " +
                            quote(orig));
    }
    if (*v > kMaxMagnitude / *unit) return tl::unexpected(invalid(orig));
    std::uint64_t total = *v * *unit;
    if (f.value > 0) {
      total += static_cast<std::uint64_t>(static_cast<double>(f.value) *
                                          (static_cast<double>(*unit) / f.scale));
      if (total > kMaxMagnitude) return tl::unexpected(invalid(orig));
    }
    d += total;
    if (d > kMaxMagnitude) return tl::unexpected(invalid(orig));
  }
  if (neg) return std::chrono::nanoseconds{static_cast<std::int64_t>(0 - d)};
  if (d > kMaxMagnitude - 1) return tl::unexpected(invalid(orig));
  return std::chrono::nanoseconds{static_cast<std::int64_t>(d)};
}

std::string format_go_duration(std::chrono::nanoseconds dur) {
  // Mirrors time.Duration.String: fill a buffer from the right.
  char buf[32];
  std::size_t w = sizeof buf;
  const std::int64_t d = dur.count();
  const bool neg = d < 0;
  std::uint64_t u = neg ? 0 - static_cast<std::uint64_t>(d) : static_cast<std::uint64_t>(d);

  if (u < 1'000'000'000) {
    // Below one second: a single smaller unit with a fraction, e.g. 1.5ms.
    int prec = 0;
    buf[--w] = 's';
    --w;
    if (u == 0) return "0s";
    if (u < 1'000) {
      buf[w] = 'n';
    } else if (u < 1'000'000) {
      prec = 3;
      // "µ" is two bytes in UTF-8; Go writes U+00B5.
      buf[w] = '\xB5';
      buf[--w] = '\xC2';
    } else {
      prec = 6;
      buf[w] = 'm';
    }
    w = fmt_frac(buf, w, u, prec);
    w = fmt_int(buf, w, u);
  } else {
    buf[--w] = 's';
    w = fmt_frac(buf, w, u, 9);
    w = fmt_int(buf, w, u % 60);  // u is now whole seconds
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      w = fmt_int(buf, w, u % 60);
      u /= 60;
      if (u > 0) {
        buf[--w] = 'h';
        w = fmt_int(buf, w, u);
      }
    }
  }
  if (neg) buf[--w] = '-';
  return std::string(buf + w, sizeof buf - w);
}

}  // namespace nsq::flags
