#include "nsq/flags/go_flags.h"

#include <cassert>
#include <limits>
#include <optional>
#include <utility>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>
#include <boost/program_options/value_semantic.hpp>

#include "nsq/flags/go_duration.h"
#include "nsq/flags/go_strconv.h"

namespace nsq::flags {
namespace po = boost::program_options;

namespace {

FlagError invalid(std::string message) {
  return FlagError{FlagError::Kind::invalid, std::move(message)};
}

// The name part of a flag word ("--name=v" -> "name") and whether it carried
// "=value". Go looks for '=' from the second character on.
struct FlagWord {
  std::string name;
  std::optional<std::string> value;
};

FlagWord split_flag_word(std::string_view body) {
  const auto eq = body.find('=', 1);
  if (eq == std::string_view::npos) return {std::string(body), std::nullopt};
  return {std::string(body.substr(0, eq)), std::string(body.substr(eq + 1))};
}

}  // namespace

FlagSet::FlagSet(std::string program_name) : name_(std::move(program_name)) {}

void FlagSet::add(std::string name, std::string usage, FlagValue value) {
  assert(!name.empty() && name[0] != '-' && name.find('=') == std::string::npos);
  auto key = name;
  const bool inserted =
      flags_.emplace(std::move(key), Flag{std::move(name), std::move(usage), std::move(value)})
          .second;
  assert(inserted && "flag redefined");
  (void)inserted;
}

void FlagSet::add_bool(std::string name, bool* target, std::string usage) {
  FlagValue v;
  v.is_bool = true;
  v.default_text = *target ? "true" : "";
  v.set = [target](std::string_view s) -> tl::expected<void, std::string> {
    auto b = parse_go_bool(s);
    if (!b) return tl::unexpected(std::string(describe(b.error())));
    *target = *b;
    return {};
  };
  add(std::move(name), std::move(usage), std::move(v));
}

void FlagSet::add_string(std::string name, std::string* target, std::string usage) {
  FlagValue v;
  v.type_name = "string";
  v.default_text = target->empty() ? "" : go_quote(*target);
  v.set = [target](std::string_view s) -> tl::expected<void, std::string> {
    *target = std::string(s);
    return {};
  };
  add(std::move(name), std::move(usage), std::move(v));
}

void FlagSet::add_int64(std::string name, std::int64_t* target, std::string usage) {
  FlagValue v;
  v.type_name = "int";
  v.default_text = *target == 0 ? "" : std::to_string(*target);
  v.set = [target](std::string_view s) -> tl::expected<void, std::string> {
    auto n = parse_go_int(s, 0);
    if (!n) return tl::unexpected(std::string(describe(n.error())));
    *target = *n;
    return {};
  };
  add(std::move(name), std::move(usage), std::move(v));
}

void FlagSet::add_int(std::string name, int* target, std::string usage) {
  FlagValue v;
  v.type_name = "int";
  v.default_text = *target == 0 ? "" : std::to_string(*target);
  v.set = [target](std::string_view s) -> tl::expected<void, std::string> {
    auto n = parse_go_int(s, 0);
    if (!n) return tl::unexpected(std::string(describe(n.error())));
    if (*n < std::numeric_limits<int>::min() || *n > std::numeric_limits<int>::max()) {
      return tl::unexpected(std::string(describe(NumError::range)));
    }
    *target = static_cast<int>(*n);
    return {};
  };
  add(std::move(name), std::move(usage), std::move(v));
}

void FlagSet::add_duration(std::string name, std::chrono::nanoseconds* target, std::string usage) {
  FlagValue v;
  v.type_name = "duration";
  v.default_text = target->count() == 0 ? "" : format_go_duration(*target);
  v.set = [target](std::string_view s) -> tl::expected<void, std::string> {
    auto d = parse_go_duration(s);
    // Go's flag package hides time.ParseDuration's text behind "parse error".
    if (!d) return tl::unexpected(std::string(describe(NumError::syntax)));
    *target = *d;
    return {};
  };
  add(std::move(name), std::move(usage), std::move(v));
}

void FlagSet::add_string_list(std::string name, std::vector<std::string>* target,
                              std::string usage) {
  FlagValue v;
  v.type_name = "value";
  v.set = [target](std::string_view s) -> tl::expected<void, std::string> {
    target->emplace_back(s);
    return {};
  };
  add(std::move(name), std::move(usage), std::move(v));
}

tl::expected<void, FlagError> FlagSet::parse(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse(args);
}

tl::expected<void, FlagError> FlagSet::parse(std::span<const std::string> args) {
  // A problem found while splitting words (unknown flag, missing argument,
  // help). Go reports it only after the values before it were set, so it
  // waits until those are applied.
  std::optional<FlagError> pending;

  // Go's flag.parseOne as a Program_options style parser: it takes all of
  // argv in one call and returns one option per flag, in order, each with
  // exactly one value.
  auto go_style = [&](std::vector<std::string>& rest) {
    std::vector<po::option> out;
    std::size_t i = 0;
    while (i < rest.size()) {
      const std::string& word = rest[i];
      if (word.size() < 2 || word[0] != '-') break;
      std::size_t minuses = 1;
      if (word[1] == '-') {
        minuses = 2;
        if (word.size() == 2) {  // "--" ends the flags
          ++i;
          break;
        }
      }
      const std::string_view body = std::string_view(word).substr(minuses);
      if (body.empty() || body[0] == '-' || body[0] == '=') {
        pending = invalid("bad flag syntax: " + word);
        return out;
      }
      FlagWord fw = split_flag_word(body);
      ++i;
      const auto it = flags_.find(fw.name);
      if (it == flags_.end()) {
        if (fw.name == "help" || fw.name == "h") {
          pending = FlagError{FlagError::Kind::help, {}};
        } else {
          pending = invalid("flag provided but not defined: -" + fw.name);
        }
        return out;
      }
      std::string value;
      if (it->second.value.is_bool) {
        value = fw.value.value_or("true");
      } else if (fw.value) {
        value = std::move(*fw.value);
      } else if (i < rest.size()) {
        value = rest[i++];  // taken even if it looks like a flag, as in Go
      } else {
        pending = invalid("flag needs an argument: -" + fw.name);
        return out;
      }
      po::option opt(fw.name, {std::move(value)});
      opt.original_tokens.push_back(word);
      out.push_back(std::move(opt));
    }
    args_.assign(rest.begin() + static_cast<std::ptrdiff_t>(i), rest.end());
    return out;
  };

  po::options_description known;
  for (const auto& [name, flag] : flags_) {
    known.add_options()(name.c_str(), po::value<std::string>());
  }

  po::parsed_options parsed(&known);
  try {
    std::vector<std::string> argv(args.begin(), args.end());
    // Every word is handed to go_style; Program_options' own syntaxes stay off.
    auto go_style_all = [&](std::vector<std::string>& rest) {
      auto out = go_style(rest);
      rest.clear();
      return out;
    };
    parsed = po::command_line_parser(argv)
                 .options(known)
                 .style(0)
                 .extra_style_parser(go_style_all)
                 .run();
  } catch (const std::exception& e) {
    // Only reachable if go_style emitted a name Program_options rejects.
    return tl::unexpected(invalid(e.what()));
  }

  for (const po::option& opt : parsed.options) {
    Flag& flag = flags_.at(opt.string_key);
    const std::string& value = opt.value.front();
    auto ok = flag.value.set(value);
    if (!ok) {
      if (!flag.value.is_bool) {
        return tl::unexpected(invalid("invalid value " + go_quote(value) + " for flag -" +
                                      flag.name + ": " + ok.error()));
      }
      const std::string& word = opt.original_tokens.front();
      const bool bare = word.find('=', word[1] == '-' ? 3 : 2) == std::string::npos;
      if (bare) {
        return tl::unexpected(invalid("invalid boolean flag " + flag.name + ": " + ok.error()));
      }
      return tl::unexpected(invalid("invalid boolean value " + go_quote(value) + " for -" +
                                    flag.name + ": " + ok.error()));
    }
    actual_.insert(flag.name);
  }
  if (pending) return tl::unexpected(std::move(*pending));
  return {};
}

bool FlagSet::is_set(std::string_view name) const { return actual_.contains(name); }

std::string FlagSet::usage() const {
  std::string out = name_.empty() ? "Usage:\n" : "Usage of " + name_ + ":\n";
  out += defaults();
  return out;
}

std::string FlagSet::defaults() const {
  std::string out;
  for (const auto& [name, flag] : flags_) {
    std::string line = "  -" + name;
    if (!flag.value.type_name.empty()) line += " " + flag.value.type_name;
    // Go keeps one-letter bool flags on one line; everything else wraps.
    line += line.size() <= 4 ? "\t" : "\n    \t";
    for (const char c : flag.usage) {
      line += c;
      if (c == '\n') line += "    \t";
    }
    if (!flag.value.default_text.empty()) line += " (default " + flag.value.default_text + ")";
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace nsq::flags
