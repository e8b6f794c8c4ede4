#include "config_template.h"

#include <string_view>

#include "machine_defaults.h"

namespace nsq::docgen {
namespace {

// Go's cfg tags that are not the flag's name (nsqd/options.go,
// nsqadmin/options.go); tests/package checks that the daemons take every key.
struct KeyName {
  std::string_view flag;
  std::string_view key;
};
constexpr KeyName kGoKeys[] = {
    {"node-id", "id"},
    {"lookupd-tcp-address", "nsqlookupd_tcp_addresses"},
    {"auth-http-address", "auth_http_addresses"},
    {"e2e-processing-latency-percentile", "e2e_processing_latency_percentiles"},
    {"lookupd-http-address", "nsqlookupd_http_addresses"},
    {"nsqd-http-address", "nsqd_http_addresses"},
    {"admin-user", "admin_users"},
};

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

}  // namespace

std::string config_key(const std::string& flag) {
  for (const KeyName& k : kGoKeys) {
    if (k.flag == flag) return std::string(k.key);
  }
  std::string key = flag;
  for (char& c : key) {
    if (c == '-') c = '_';
  }
  return key;
}

bool is_config_option(const FlagDoc& flag) {
  if (flag.name == "version" || flag.name == "config" || flag.name == "help") return false;
  return !flag.usage.starts_with("[deprecated]");
}

std::string toml_default(const FlagDoc& f) {
  const std::string& d = f.default_text;
  if (f.type.empty()) return d.empty() ? "false" : d;
  if (f.type == "int" || f.type == "uint" || f.type == "float") return d.empty() ? "0" : d;
  if (f.type == "string") return d.empty() ? "\"\"" : d;  // Go's %q reads as a TOML string
  if (f.type == "duration") return "\"" + (d.empty() ? std::string("0s") : d) + "\"";
  // "value": Go's flag.Value options, lists or text.
  if (f.usage.find("multiple times") != std::string::npos) return "[]";
  // Go shows the TLS version's number (769 = TLS 1.0); the file takes its name.
  if (f.name == "tls-min-version") return "\"tls1.0\"";
  return "\"" + d + "\"";
}

std::string render_config(const ConfigTemplate& config, const std::vector<FlagDoc>& flags) {
  std::string out;
  out += "# " + config.path + ": " + config.program + "'s options, read by `" + config.program +
         " --config=" + config.path + "`.\n";
  out += "# Generated from `" + config.program + " --help` (" + config.source +
         "): every option, commented out,\n"
         "# with its default. TOML; a flag given on the command line wins over this file.\n";
  for (const FlagDoc& f : flags) {
    if (!is_config_option(f)) continue;
    const std::string key = config_key(f.name);
    out += "\n# " + one_line(f.usage) + "\n";
    const auto active = config.active.find(key);
    if (active != config.active.end()) {
      out += "# (set here by the package; the default is " + toml_default(f) + ")\n";
      out += key + " = " + active->second + "\n";
    } else if (is_machine_dependent(f.name)) {
      out += "# " + key + " = <computed on each machine>\n";
    } else {
      out += "# " + key + " = " + toml_default(f) + "\n";
    }
  }
  return out;
}

}  // namespace nsq::docgen
