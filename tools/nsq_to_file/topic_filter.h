#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace nsq::to_file {

// --topic-pattern: an unanchored regex search over the topic name (Go's
// regexp.MatchString). Empty pattern: every topic. A pattern that does not
// compile matches nothing (Go's MatchString error counts as no match).
class TopicFilter {
 public:
  explicit TopicFilter(std::string pattern);

  bool allowed(std::string_view topic) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::optional<std::regex> regex_;  // unset: empty or invalid pattern
};

}  // namespace nsq::to_file
