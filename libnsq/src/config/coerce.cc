#include "nsq/config/coerce.h"

#include <string_view>
#include <utility>

#include "nsq/flags/go_duration.h"
#include "nsq/flags/go_strconv.h"

namespace nsq::config {
namespace {

using flags::NumError;

constexpr std::string_view kInvalidType = "invalid value type";

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

// strconv's *NumError text: `strconv.ParseInt: parsing "x": invalid syntax`.
std::string strconv_error(std::string_view fn, std::string_view input, NumError e) {
  return "strconv." + std::string(fn) + ": parsing " + flags::go_quote(input) + ": " +
         (e == NumError::range ? "value out of range" : "invalid syntax");
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  for (;;) {
    const auto comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) return out;
    s.remove_prefix(comma + 1);
  }
}

std::string_view trim_space(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\v\f";
  const auto b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

}  // namespace

std::string go_format(const Value& v) {
  return std::visit(Overloaded{
                        [](bool b) -> std::string { return b ? "true" : "false"; },
                        [](std::int64_t i) -> std::string { return std::to_string(i); },
                        [](double d) -> std::string { return flags::format_go_float(d); },
                        [](const std::string& s) -> std::string { return s; },
                        [](const Array& a) -> std::string {
                          std::string out = "[";
                          for (std::size_t i = 0; i < a.size(); ++i) {
                            if (i > 0) out += ' ';
                            out += go_format(a[i]);
                          }
                          return out + "]";
                        },
                        [](const Table&) -> std::string { return "map[]"; },
                    },
                    v.v);
}

tl::expected<bool, std::string> coerce_bool(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v.v)) return *b;
  if (const auto* s = std::get_if<std::string>(&v.v)) {
    auto r = flags::parse_go_bool(*s);
    if (!r) return tl::unexpected(strconv_error("ParseBool", *s, r.error()));
    return *r;
  }
  if (const auto* i = std::get_if<std::int64_t>(&v.v)) return *i != 0;
  return tl::unexpected(std::string(kInvalidType));
}

tl::expected<std::int64_t, std::string> coerce_int(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v.v)) return *i;
  if (const auto* s = std::get_if<std::string>(&v.v)) {
    auto r = flags::parse_go_int(*s, 10);
    if (!r) return tl::unexpected(strconv_error("ParseInt", *s, r.error()));
    return *r;
  }
  return tl::unexpected(std::string(kInvalidType));
}

tl::expected<std::string, std::string> coerce_string(const Value& v) {
  if (std::holds_alternative<Array>(v.v) || std::holds_alternative<Table>(v.v)) {
    return tl::unexpected(std::string(kInvalidType));
  }
  return go_format(v);
}

tl::expected<std::chrono::nanoseconds, std::string> coerce_duration(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v.v)) return flags::parse_go_duration(*s);
  if (const auto* i = std::get_if<std::int64_t>(&v.v)) {
    // A bare number in a config file is milliseconds (go-options' default unit).
    return std::chrono::nanoseconds{std::chrono::milliseconds{*i}};
  }
  return tl::unexpected(std::string(kInvalidType));
}

tl::expected<std::vector<std::string>, std::string> coerce_string_list(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v.v)) return split_commas(*s);
  if (const auto* a = std::get_if<Array>(&v.v)) {
    std::vector<std::string> out;
    for (const Value& e : *a) {
      const auto* s = std::get_if<std::string>(&e.v);
      // Go panics on a non-string element; refusing is the sane version.
      if (s == nullptr) return tl::unexpected(std::string(kInvalidType));
      out.push_back(*s);
    }
    return out;
  }
  // Go quietly yields an empty list for any other type.
  return std::vector<std::string>{};
}

tl::expected<std::vector<double>, std::string> coerce_float_list(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v.v)) {
    std::vector<double> out;
    for (const std::string& part : split_commas(*s)) {
      const std::string_view t = trim_space(part);
      auto f = flags::parse_go_float(t);
      if (!f) return tl::unexpected(strconv_error("ParseFloat", t, f.error()));
      out.push_back(*f);
    }
    return out;
  }
  if (const auto* a = std::get_if<Array>(&v.v)) {
    std::vector<double> out;
    for (const Value& e : *a) {
      if (const auto* d = std::get_if<double>(&e.v)) {
        out.push_back(*d);
      } else if (const auto* i = std::get_if<std::int64_t>(&e.v)) {
        // TOML `1` is an integer; Go panics on it, we take it as 1.0.
        out.push_back(static_cast<double>(*i));
      } else {
        return tl::unexpected(std::string(kInvalidType));
      }
    }
    return out;
  }
  return std::vector<double>{};
}

}  // namespace nsq::config
