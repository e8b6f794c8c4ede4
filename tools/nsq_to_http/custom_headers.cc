#include "custom_headers.h"

#include <string_view>

namespace nsq::tools::to_http {
namespace {

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\v\f";
  auto begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  auto end = s.find_last_not_of(kSpace);
  return s.substr(begin, end - begin + 1);
}

}  // namespace

tl::expected<http::HeaderList, std::string> parse_custom_headers(
    const std::vector<std::string>& values) {
  http::HeaderList headers;
  for (const auto& text : values) {
    auto colon = text.find(':');
    std::string_view name = colon == std::string::npos
                                ? std::string_view{}
                                : trim(std::string_view(text).substr(0, colon));
    std::string_view value = colon == std::string::npos
                                 ? std::string_view{}
                                 : trim(std::string_view(text).substr(colon + 1));
    if (name.empty() || value.empty()) return tl::unexpected("Invalid header: \"" + text + "\"");
    bool replaced = false;
    for (auto& [n, v] : headers) {
      if (n == name) {
        v = std::string(value);
        replaced = true;
      }
    }
    if (!replaced) headers.emplace_back(std::string(name), std::string(value));
  }
  return headers;
}

}  // namespace nsq::tools::to_http
