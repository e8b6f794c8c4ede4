#include "go_json_encoder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace nsq::tools::to_nsq_bridge {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, std::uint32_t code) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(code >> shift) & 15]);
}

// Length of the valid UTF-8 sequence at s[i], 0 if invalid.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  std::uint32_t code = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) >> 6) != 2) return 0;
    code = (code << 6) | (byte(i + k) & 0x3f);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMin[len] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return len;
}

void append_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
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
        case '<':
        case '>':
        case '&':
          append_u_escape(out, c);
          break;
        default:
          if (c < 0x20) {
            append_u_escape(out, c);
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    std::string_view seq = s.substr(i, len);
    if (seq == "\xe2\x80\xa8") {
      out += "\\u2028";
    } else if (seq == "\xe2\x80\xa9") {
      out += "\\u2029";
    } else {
      out.append(seq);
    }
    i += len;
  }
  out.push_back('"');
}

void append_number(std::string& out, const rapidjson::Value& v) {
  if (v.IsInt64()) {
    out += std::to_string(v.GetInt64());
  } else if (v.IsUint64()) {
    out += std::to_string(v.GetUint64());
  } else {
    double d = v.GetDouble();
    if (std::trunc(d) == d && std::fabs(d) < 9.2e18) {
      out += std::to_string(static_cast<std::int64_t>(d));
    } else {
      out += go_json_float(d);
    }
  }
}

}  // namespace

std::string go_json_float(double value) {
  char buf[64];
  double abs = std::fabs(value);
  bool fixed = abs == 0 || (abs >= 1e-6 && abs < 1e21);
  auto [end, ec] = fixed
                       ? std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed)
                       : std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string text(buf, ec == std::errc() ? end : buf);
  if (!fixed) {
    // Go writes e-07 as e-7 (and e+07 as e+7).
    auto e = text.find('e');
    if (e != std::string::npos && text.size() - e == 4 && text[e + 2] == '0') {
      text.erase(e + 2, 1);
    }
  }
  return text;
}

void append_go_json(std::string& out, const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      break;
    case rapidjson::kFalseType:
      out += "false";
      break;
    case rapidjson::kTrueType:
      out += "true";
      break;
    case rapidjson::kStringType:
      append_string(out, std::string_view(value.GetString(), value.GetStringLength()));
      break;
    case rapidjson::kNumberType:
      append_number(out, value);
      break;
    case rapidjson::kArrayType: {
      out.push_back('[');
      bool first = true;
      for (const auto& item : value.GetArray()) {
        if (!first) out.push_back(',');
        first = false;
        append_go_json(out, item);
      }
      out.push_back(']');
      break;
    }
    case rapidjson::kObjectType: {
      // Go decodes into a map (the last duplicate key wins) and marshals
      // its keys sorted.
      std::vector<std::pair<std::string_view, const rapidjson::Value*>> members;
      for (const auto& m : value.GetObject()) {
        std::string_view key(m.name.GetString(), m.name.GetStringLength());
        auto it = std::find_if(members.begin(), members.end(),
                               [&](const auto& p) { return p.first == key; });
        if (it != members.end()) {
          it->second = &m.value;
        } else {
          members.emplace_back(key, &m.value);
        }
      }
      std::sort(members.begin(), members.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      out.push_back('{');
      bool first = true;
      for (const auto& [key, member] : members) {
        if (!first) out.push_back(',');
        first = false;
        append_string(out, key);
        out.push_back(':');
        append_go_json(out, *member);
      }
      out.push_back('}');
      break;
    }
  }
}

}  // namespace nsq::tools::to_nsq_bridge
