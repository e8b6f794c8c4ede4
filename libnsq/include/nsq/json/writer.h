#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

// JSON text as json.Marshal in Go 1.19 (the Go of the NSQ v1.3.0 binaries)
// writes it, appended to a std::string. The caller writes the braces,
// brackets and commas; these write the values whose text Go decides.
// (Every JSON the Go NSQ programs send comes from json.Marshal, which escapes
// HTML: no caller needs Encoder.SetEscapeHTML(false).)
namespace nsq::json {

// Appends s as a quoted string: \" \\ \n \r \t; the other bytes below 0x20
// and < > & as \u00XX (Go 1.19 writes \u0008 and \u000c, not \b and \f);
// U+2028 and U+2029 as \u2028 and \u2029; each byte that starts no valid
// UTF-8 sequence (nsq/utf8.h) as \ufffd; anything else as it is.
void append_string(std::string& out, std::string_view s);

// s quoted as append_string writes it.
std::string quote(std::string_view s);

// Appends "key": (the key quoted as a string).
void append_key(std::string& out, std::string_view key);

// Appends a float64: the shortest digits that read back as v, as a plain
// decimal unless |v| < 1e-6 or |v| >= 1e21, then with an exponent of at
// least one digit (1e-7, 1.5e+21). NaN and the infinities, which Go refuses
// to encode, are written as 0.
void append_float(std::string& out, double v);

template <std::integral T>
requires(!std::same_as<T, bool>) void append_int(std::string& out, T v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

inline void append_bool(std::string& out, bool v) { out.append(v ? "true" : "false"); }

}  // namespace nsq::json
