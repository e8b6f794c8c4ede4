#include "usage_text.h"

#include <algorithm>
#include <cctype>

namespace nsq::docgen {
namespace {

bool all_of_chars(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

// Whether `text` can be Go's default text for a flag of `type`.
bool fits_type(std::string_view type, std::string_view text) {
  if (type.empty()) return text == "true" || text == "false";
  if (type == "string") return text.size() >= 2 && text.front() == '"' && text.back() == '"';
  if (type == "int" || type == "uint") {
    return all_of_chars(text.substr(text.starts_with('-') ? 1 : 0), "0123456789");
  }
  if (type == "float") return all_of_chars(text, "0123456789.-+e");
  if (type == "duration") return all_of_chars(text, "0123456789.-hmsuµn");
  return true;  // "value": any text
}

// Moves a trailing "(default X)" of doc.usage into doc.default_text.
void split_default(FlagDoc& doc) {
  constexpr std::string_view kOpen = " (default ";
  const auto at = doc.usage.rfind(kOpen);
  if (at == std::string::npos || !doc.usage.ends_with(')')) return;
  const std::string text =
      doc.usage.substr(at + kOpen.size(), doc.usage.size() - at - kOpen.size() - 1);
  if (!fits_type(doc.type, text)) return;
  doc.default_text = text;
  doc.usage.erase(at);
}

}  // namespace

std::vector<FlagDoc> parse_go_usage(std::string_view text) {
  std::vector<FlagDoc> flags;
  bool open = false;  // the last entry may take continuation lines
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    if (line.starts_with("  -")) {
      if (open) split_default(flags.back());
      FlagDoc& doc = flags.emplace_back();
      line.remove_prefix(3);
      // A one-letter bool flag keeps its usage on the same line, after a tab.
      const auto tab = line.find('\t');
      std::string_view head = line.substr(0, tab);
      if (tab != std::string_view::npos) doc.usage = std::string(line.substr(tab + 1));
      const auto space = head.find(' ');
      doc.name = std::string(head.substr(0, space));
      if (space != std::string_view::npos) doc.type = std::string(head.substr(space + 1));
      open = true;
    } else if (open && line.starts_with("    \t")) {
      FlagDoc& doc = flags.back();
      if (!doc.usage.empty()) doc.usage += '\n';
      doc.usage += line.substr(5);
    }
    // Anything else ("Usage of nsqd:") is not part of a flag.
  }
  if (open) split_default(flags.back());
  return flags;
}

}  // namespace nsq::docgen
