#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

// Command-line parsing that accepts exactly what Go's `flag` package accepts,
// so nsq-cpp binaries are drop-in for the Go ones:
//   -name value  -name=value  --name value  --name=value
//   bool flags: bare -name (= true) or -name=false; a separate "false" word is
//   NOT consumed (it is the first positional argument)
//   parsing stops at the first non-flag argument or after "--"
//   a non-bool flag takes the next word as its value even if it starts with '-'
// Boost.Program_options validates and orders the options; the Go tokenizing
// rules are ours, plugged in as its extra style parser.
namespace nsq::flags {

// Go's flag.Value: what one flag does with its text.
struct FlagValue {
  // Parses the text and stores it. The error text is Go's Set error, e.g.
  // "parse error" (the caller adds `invalid value "x" for flag -name: `).
  std::function<tl::expected<void, std::string>(std::string_view)> set;
  // Shown after the flag name in usage: "int", "string", "duration",
  // "float", "value"; empty for bool flags.
  std::string type_name;
  // Go's "(default X)" text without the parentheses' prefix, already in Go's
  // form ("2s", "\"0.0.0.0:4150\"", "true"); empty when the default is the
  // zero value, which Go does not print.
  std::string default_text;
  // Bool flags need no argument: bare -name means set("true").
  bool is_bool = false;
};

// Why parse() did not succeed.
struct FlagError {
  enum class Kind {
    help,     // -h / -help / --help given (and not defined): print usage, exit 0
    invalid,  // message is Go's text; print it and usage, exit 2
  };
  Kind kind = Kind::invalid;
  std::string message;
};

// A named set of flags (Go's flag.FlagSet with ContinueOnError).
// Typed add_* helpers store into *target, which must stay alive until parse()
// returns; the target's value at registration is the default shown in usage.
// Not thread-safe; used once at startup.
class FlagSet {
 public:
  explicit FlagSet(std::string program_name);

  FlagSet(const FlagSet&) = delete;
  FlagSet& operator=(const FlagSet&) = delete;

  // Registers a flag; names are unique (asserted).
  void add(std::string name, std::string usage, FlagValue value);

  void add_bool(std::string name, bool* target, std::string usage);
  void add_string(std::string name, std::string* target, std::string usage);
  void add_int64(std::string name, std::int64_t* target, std::string usage);
  // Range-checked to int ("value out of range" outside it).
  void add_int(std::string name, int* target, std::string usage);
  void add_duration(std::string name, std::chrono::nanoseconds* target, std::string usage);
  // Each occurrence appends one value, no comma splitting (NSQ's StringArray);
  // shown as type "value" with no default.
  void add_string_list(std::string name, std::vector<std::string>* target, std::string usage);

  // Parses args (without the program name). Stops at the first error, as Go
  // does: values of earlier flags are already stored by then.
  tl::expected<void, FlagError> parse(std::span<const std::string> args);
  tl::expected<void, FlagError> parse(int argc, const char* const* argv);

  // True if the flag appeared on the command line (Go's flag.Visit), which is
  // what gives a flag precedence over a config file value.
  bool is_set(std::string_view name) const;
  // Names of all flags given, sorted.
  const std::set<std::string, std::less<>>& set_flags() const { return actual_; }
  // The arguments left after the flags (Go's Args()).
  const std::vector<std::string>& args() const { return args_; }

  // "Usage of <name>:\n" followed by defaults(): what Go prints for -h.
  std::string usage() const;
  // Go's PrintDefaults: one entry per flag, sorted by name.
  std::string defaults() const;

  const std::string& name() const { return name_; }

 private:
  struct Flag {
    std::string name;
    std::string usage;
    FlagValue value;
  };

  std::string name_;
  std::map<std::string, Flag, std::less<>> flags_;
  std::set<std::string, std::less<>> actual_;
  std::vector<std::string> args_;
};

}  // namespace nsq::flags
