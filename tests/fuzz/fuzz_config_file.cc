// The --config TOML files of nsqd and nsqlookupd, read the whole way the
// binaries read them: parse_{nsqd,lookupd}_options with --config pointing at
// the input (an in-memory file), so toml++, the value coercions and the
// option checks all run. Plus config::parse_toml and every coercion on each
// top-level value. Invariants: nothing throws; text parse_toml refuses is
// refused from the file with the same reason; a refused config is exit code
// 1 with a reason; accepted options pass check_options again.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lookupd/options_parser.h"
#include "nsq/config/coerce.h"
#include "nsq/config/config_file.h"
#include "nsqd/options_parser.h"

namespace {

// One memfd for the whole run, rewritten per input: no disk traffic.
const std::string& config_path() {
  static const std::string path = [] {
    int fd = memfd_create("fuzz_config", 0);
    if (fd < 0) std::abort();
    return "/proc/self/fd/" + std::to_string(fd);
  }();
  return path;
}

void write_config(std::string_view text) {
  const std::string& path = config_path();
  int fd = std::atoi(path.c_str() + std::string_view("/proc/self/fd/").size());
  if (ftruncate(fd, 0) != 0) std::abort();
  if (!text.empty() &&
      pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    std::abort();
  }
}

void coerce_all(const nsq::config::Map& map) {
  namespace config = nsq::config;
  for (const auto& [key, value] : map) {
    (void)config::go_format(value);
    (void)config::coerce_bool(value);
    (void)config::coerce_int(value);
    (void)config::coerce_string(value);
    (void)config::coerce_duration(value);
    (void)config::coerce_string_list(value);
    (void)config::coerce_float_list(value);
  }
}

template <class Outcome>
void check_refusal(const Outcome& outcome) {
  if (!outcome && (outcome.error().exit_code != 1 || outcome.error().text.empty())) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto map = nsq::config::parse_toml(text);
  if (map) {
    coerce_all(*map);
  } else if (map.error().empty()) {
    std::abort();
  }

  write_config(text);
  if (!map) {
    // Refused text is refused from the file too, with the same reason; the
    // option parsers (slow: ~100 flags each) only see what toml++ takes.
    auto loaded = nsq::config::load_toml_file(config_path());
    if (loaded || loaded.error() != map.error()) std::abort();
    return 0;
  }
  const std::vector<std::string> args{"--config=" + config_path()};

  auto nsqd = nsq::nsqd::parse_nsqd_options(args, nsq::nsqd::ParseEnv{"fuzzhost", "fuzz"});
  check_refusal(nsqd);
  if (nsqd) {
    nsq::nsqd::Options again = *nsqd;
    if (!nsq::nsqd::check_options(again)) std::abort();
  }
  auto lookupd =
      nsq::lookupd::parse_lookupd_options(args, nsq::lookupd::ParseEnv{"fuzzhost", "fuzz"});
  check_refusal(lookupd);
  return 0;
}
