#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

// Go's strconv rules for the scalar types of command-line flags and config
// values, so that nsq-cpp accepts exactly the spellings Go nsqd accepts.
namespace nsq::flags {

// Why a number did not parse (strconv.ErrSyntax / strconv.ErrRange).
enum class NumError { syntax, range };

// Go's "parse error" / "value out of range", as the flag package prints them.
std::string_view describe(NumError e) noexcept;

// strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False.
tl::expected<bool, NumError> parse_go_bool(std::string_view s);

// strconv.ParseInt(s, base, 64). base 0 (what the flag package uses) takes
// 0x/0o/0b prefixes, a leading 0 as octal and '_' digit separators; base 10
// (what config strings use) takes plain decimal only.
tl::expected<std::int64_t, NumError> parse_go_int(std::string_view s, int base);

// strconv.ParseFloat(s, 64) for decimal input (with "inf", "infinity" and
// "nan" in any case). Hex floats and '_' separators are not accepted.
tl::expected<double, NumError> parse_go_float(std::string_view s);

// fmt's %v for a float64: shortest round-trip digits, exponent form
// (e.g. "1e-07", "1e+21") only below 1e-4 or from 1e21 on.
std::string format_go_float(double v);

// fmt's %q for a string: double quotes, Go escapes for '"', '\\' and
// control bytes.
std::string go_quote(std::string_view s);

}  // namespace nsq::flags
