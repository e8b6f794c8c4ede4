#include "topic_filter.h"

namespace nsq::to_file {

TopicFilter::TopicFilter(std::string pattern) : pattern_(std::move(pattern)) {
  if (pattern_.empty()) return;
  try {
    regex_.emplace(pattern_, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    regex_.reset();
  }
}

bool TopicFilter::allowed(std::string_view topic) const {
  if (pattern_.empty()) return true;
  if (!regex_) return false;
  return std::regex_search(topic.begin(), topic.end(), *regex_);
}

}  // namespace nsq::to_file
