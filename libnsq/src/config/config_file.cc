#include "nsq/config/config_file.h"

#include <sstream>
#include <utility>

#include <toml++/toml.h>

namespace nsq::config {
namespace {

Value convert(const toml::node& node);

Array convert_array(const toml::array& arr) {
  Array out;
  out.reserve(arr.size());
  for (const toml::node& n : arr) out.push_back(convert(n));
  return out;
}

template <class T>
std::string text_of(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

Value convert(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return Value{std::string(node.as_string()->get())};
    case toml::node_type::integer:
      return Value{node.as_integer()->get()};
    case toml::node_type::floating_point:
      return Value{node.as_floating_point()->get()};
    case toml::node_type::boolean:
      return Value{node.as_boolean()->get()};
    case toml::node_type::date:
      return Value{text_of(node.as_date()->get())};
    case toml::node_type::time:
      return Value{text_of(node.as_time()->get())};
    case toml::node_type::date_time:
      return Value{text_of(node.as_date_time()->get())};
    case toml::node_type::array:
      return Value{convert_array(*node.as_array())};
    case toml::node_type::table:
    case toml::node_type::none:
      break;
  }
  return Value{Table{}};
}

Map convert_table(const toml::table& table) {
  Map out;
  for (const auto& [key, node] : table) {
    out.emplace(std::string(key.str()), convert(node));
  }
  return out;
}

std::string describe(const toml::parse_error& e) {
  std::ostringstream os;
  os << e.description() << " (line " << e.source().begin.line << ", column "
     << e.source().begin.column << ")";
  return os.str();
}

}  // namespace

tl::expected<Map, std::string> load_toml_file(const std::string& path) {
  try {
    return convert_table(toml::parse_file(path));
  } catch (const toml::parse_error& e) {
    return tl::unexpected(describe(e));
  } catch (const std::exception& e) {
    return tl::unexpected(std::string(e.what()));
  }
}

tl::expected<Map, std::string> parse_toml(std::string_view text) {
  try {
    return convert_table(toml::parse(text));
  } catch (const toml::parse_error& e) {
    return tl::unexpected(describe(e));
  } catch (const std::exception& e) {
    return tl::unexpected(std::string(e.what()));
  }
}

}  // namespace nsq::config
