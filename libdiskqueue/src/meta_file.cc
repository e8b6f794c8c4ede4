#include "meta_file.h"

#include <charconv>

namespace nsq::diskqueue::meta_file {
namespace {

// Consumes an optionally signed decimal integer.
bool take_int(std::string_view& in, std::int64_t& out) {
  std::size_t start = (!in.empty() && (in[0] == '+' || in[0] == '-')) ? 1 : 0;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(in.data() + start, in.data() + in.size(), value);
  if (ec != std::errc() || end == in.data() + start) return false;
  out = (in[0] == '-') ? -value : value;
  in.remove_prefix(static_cast<std::size_t>(end - in.data()));
  return true;
}

bool take_char(std::string_view& in, char c) {
  if (in.empty() || in[0] != c) return false;
  in.remove_prefix(1);
  return true;
}

}  // namespace

std::string format(const Meta& meta) {
  std::string out;
  out.reserve(64);
  out += std::to_string(meta.depth);
  out += '\n';
  out += std::to_string(meta.read_file_num);
  out += ',';
  out += std::to_string(meta.read_pos);
  out += '\n';
  out += std::to_string(meta.write_file_num);
  out += ',';
  out += std::to_string(meta.write_pos);
  out += '\n';
  return out;
}

bool parse(std::string_view in, Meta& meta) {
  std::int64_t depth = 0;
  if (!take_int(in, depth) || !take_char(in, '\n')) return false;
  if (!take_int(in, meta.read_file_num) || !take_char(in, ',')) return false;
  if (!take_int(in, meta.read_pos) || !take_char(in, '\n')) return false;
  if (!take_int(in, meta.write_file_num) || !take_char(in, ',')) return false;
  if (!take_int(in, meta.write_pos)) return false;
  // The last newline may be missing (Fscanf treats end of input as one).
  if (!in.empty() && !take_char(in, '\n')) return false;
  meta.depth = depth;
  return true;
}

}  // namespace nsq::diskqueue::meta_file
