#include "nsq/json/writer.h"

#include <cmath>

#include "nsq/utf8.h"

namespace nsq::json {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// Whether an ASCII byte goes out as it is.
constexpr bool is_plain(unsigned char c) noexcept {
  return c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&';
}

void append_escaped_ascii(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out.append("\\\"");
      return;
    case '\\':
      out.append("\\\\");
      return;
    case '\n':
      out.append("\\n");
      return;
    case '\r':
      out.append("\\r");
      return;
    case '\t':
      out.append("\\t");
      return;
    default:
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
  }
}

// U+2028 LINE SEPARATOR or U+2029 PARAGRAPH SEPARATOR (E2 80 A8/A9), which
// Go escapes so that the text is also valid JavaScript.
bool is_line_separator(std::string_view s, std::size_t i, std::size_t n) noexcept {
  return n == 3 && s[i] == '\xe2' && s[i + 1] == '\x80' &&
         (s[i + 2] == '\xa8' || s[i + 2] == '\xa9');
}

}  // namespace

void append_string(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t plain_from = 0;  // s[plain_from, i) is still to be copied as it is
  std::size_t i = 0;
  const auto flush = [&] { out.append(s.substr(plain_from, i - plain_from)); };
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (!is_plain(c)) {
        flush();
        append_escaped_ascii(out, c);
        plain_from = i + 1;
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8::sequence_length(s, i);
    if (n == 0) {
      flush();
      out.append("\\ufffd");
      plain_from = ++i;
    } else if (is_line_separator(s, i, n)) {
      flush();
      out.append(s[i + 2] == '\xa8' ? "\\u2028" : "\\u2029");
      plain_from = i += n;
    } else {
      i += n;
    }
  }
  flush();
  out.push_back('"');
}

std::string quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_string(out, s);
  return out;
}

void append_key(std::string& out, std::string_view key) {
  append_string(out, key);
  out.push_back(':');
}

void append_float(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out.push_back('0');
    return;
  }
  char buf[64];
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-6 || a >= 1e21)) {
    const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string_view t(buf, static_cast<std::size_t>(r.ptr - buf));
    // to_chars writes at least two exponent digits, like Go's strconv;
    // encoding/json then shortens e-07 to e-7. (A positive exponent here
    // is at least 21.)
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

}  // namespace nsq::json
