// nsq_docgen: a build helper for the Debian package (cmake/PackageDocs.cmake),
// not installed. Turns a program's --help text into its man page or, for the
// daemons, its /etc/nsq config file:
//   nsq_docgen man --program nsqd --usage help.txt --out nsqd.1 --summary TEXT
//       [--description PARAGRAPH ...] [--source TEXT] [--config-file PATH] [--see-also PAGE ...]
//   nsq_docgen conf --program nsqd --usage help.txt --out nsqd.conf --path /etc/nsq/nsqd.conf
//       [--source TEXT] [--set KEY=VALUE ...]
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "config_template.h"
#include "man_page.h"
#include "nsq/flags/go_flags.h"
#include "usage_text.h"

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "nsq_docgen: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nsq::docgen;
  if (argc < 2) return fail("usage: nsq_docgen man|conf --program P --usage FILE --out FILE ...");
  const std::string mode = argv[1];
  std::string program, usage_file, out_file, summary, source, config_file, path;
  std::vector<std::string> description, see_also, sets;
  nsq::flags::FlagSet fs("nsq_docgen");
  fs.add_string("program", &program, "the program's name");
  fs.add_string("usage", &usage_file, "file holding its --help output");
  fs.add_string("out", &out_file, "file to write");
  fs.add_string("summary", &summary, "man: the NAME line");
  fs.add_string_list("description", &description, "man: a DESCRIPTION paragraph");
  fs.add_string("source", &source, "footer / header: \"nsq-cpp 1.3.0\"");
  fs.add_string("config-file", &config_file, "man: the config file named in FILES");
  fs.add_string_list("see-also", &see_also, "man: a page for SEE ALSO, \"nsqd(1)\"");
  fs.add_string("path", &path, "conf: where the file is installed");
  fs.add_string_list("set", &sets, "conf: key=value written uncommented");
  if (!fs.parse(argc - 1, argv + 1)) return fail("bad arguments\n" + fs.usage());
  if (program.empty() || usage_file.empty() || out_file.empty()) {
    return fail("--program, --usage and --out are required");
  }

  std::ifstream in(usage_file, std::ios::binary);
  if (!in) return fail("cannot read " + usage_file);
  const std::string usage((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<FlagDoc> flags = parse_go_usage(usage);
  // An empty list means the program printed something else (it failed).
  if (flags.empty()) return fail(usage_file + " has no flags: " + usage);

  std::string text;
  if (mode == "man") {
    text = render_man_page(ManPage{program, summary, description, source, config_file, see_also},
                           flags);
  } else if (mode == "conf") {
    ConfigTemplate config{program, path, source, {}};
    for (const std::string& s : sets) {
      const auto eq = s.find('=');
      if (eq == std::string::npos) return fail("--set wants key=value, not " + s);
      config.active[s.substr(0, eq)] = s.substr(eq + 1);
    }
    text = render_config(config, flags);
  } else {
    return fail("unknown mode " + mode + " (man or conf)");
  }
  std::ofstream out(out_file, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) return fail("cannot write " + out_file);
  return 0;
}
