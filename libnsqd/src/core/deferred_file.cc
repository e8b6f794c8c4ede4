#include "core/deferred_file.h"

#include <charconv>

namespace nsq::nsqd::deferred_file {

std::filesystem::path path_for(const std::filesystem::path& meta_path) {
  std::string name = meta_path.filename().string();
  const std::string_view meta = ".meta.dat";
  if (name.size() >= meta.size() &&
      name.compare(name.size() - meta.size(), meta.size(), meta) == 0) {
    name.resize(name.size() - meta.size());
  }
  return meta_path.parent_path() / (name + ".deferred.dat");
}

std::string encode(const std::vector<Entry>& entries) {
  std::string out;
  out.reserve(entries.size() * 32);
  for (const Entry& e : entries) {
    out.append(e.id.data(), e.id.size());
    out += ' ';
    out += std::to_string(e.due_unix_ms);
    out += '\n';
  }
  return out;
}

std::vector<Entry> decode(std::string_view text) {
  std::vector<Entry> out;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos) break;  // a line cut short: ignored
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    Entry e;
    if (line.size() < e.id.size() + 2 || line[e.id.size()] != ' ') continue;
    std::copy(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(e.id.size()), e.id.begin());
    const std::string_view due = line.substr(e.id.size() + 1);
    const auto [end, ec] = std::from_chars(due.data(), due.data() + due.size(), e.due_unix_ms);
    if (ec != std::errc() || end != due.data() + due.size() || e.due_unix_ms < 0) continue;
    out.push_back(e);
  }
  return out;
}

}  // namespace nsq::nsqd::deferred_file
