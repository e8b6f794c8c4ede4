#include "man_page.h"

#include <cctype>

#include "machine_defaults.h"

namespace nsq::docgen {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Paragraphs as roff, a .PP between them.
std::string paragraphs(const std::vector<std::string>& texts) {
  std::string out;
  for (const std::string& para : texts) {
    if (!out.empty()) out += ".PP\n";
    out += roff_escape(para) + "\n";
  }
  return out;
}

}  // namespace

std::string roff_escape(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    // A line starting with '.' or '\'' would be read as a request.
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string render_man_page(const ManPage& page, const std::vector<FlagDoc>& flags) {
  const std::string name = roff_escape(page.program);
  std::string out;
  out += ".\\\" Generated from \"" + page.program + " --help\" by nsq_docgen; do not edit.\n";
  out += ".TH " + upper(name) + " 1 \"\" \"" + roff_escape(page.source) + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + name + " \\- " + roff_escape(page.summary) + "\n";
  out += ".SH SYNOPSIS\n.B " + name + "\n[\\fIoptions\\fR]\n";
  out += ".SH DESCRIPTION\n" + paragraphs(page.description);
  out += ".SH OPTIONS\n";
  out +=
      "Flags take one or two dashes, and their value after a space or an equals sign\n"
      "(\\fB\\-\\-name value\\fR, \\fB\\-name=value\\fR), as Go's flag package reads "
      "them.\n"
      "A boolean flag alone means true; \\fB\\-\\-name=false\\fR turns it off.\n";
  for (const FlagDoc& f : flags) {
    out += ".TP\n\\fB\\-\\-" + roff_escape(f.name) + "\\fR";
    if (!f.type.empty()) out += " \\fI" + roff_escape(f.type) + "\\fR";
    out += "\n" + roff_escape(f.usage);
    if (!f.default_text.empty() && !is_machine_dependent(f.name)) {
      out += " (default " + roff_escape(f.default_text) + ")";
    }
    out += "\n";
  }
  if (!page.config_file.empty()) {
    out += ".SH FILES\n.TP\n.I " + roff_escape(page.config_file) + "\n";
    out +=
        "The options as a TOML file, read with \\fB\\-\\-config\\fR; a flag given on the\n"
        "command line wins over the file. The file lists every option's key, commented\n"
        "out, with its default and what it does.\n";
  }
  if (!page.see_also.empty()) {
    out += ".SH SEE ALSO\n";
    for (std::size_t i = 0; i < page.see_also.size(); ++i) {
      const std::string& ref = page.see_also[i];
      const auto paren = ref.find('(');
      out += ".BR " + roff_escape(ref.substr(0, paren)) + " " + ref.substr(paren);
      out += i + 1 < page.see_also.size() ? " ,\n" : "\n";
    }
  }
  return out;
}

}  // namespace nsq::docgen
