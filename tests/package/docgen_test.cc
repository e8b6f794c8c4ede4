// nsq_docgen's parts (tools/nsq_docgen): reading Go's usage text back, and
// the man page and config file made from it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config_template.h"
#include "man_page.h"
#include "usage_text.h"

namespace nsq::docgen {
namespace {

// As nsq::flags::FlagSet::usage() prints it (Go's PrintDefaults).
constexpr const char* kUsage =
    "Usage of nsqd:\n"
    "  -broadcast-address string\n"
    "    \taddress that will be registered with lookupd (defaults to the OS hostname) "
    "(default \"buildhost\")\n"
    "  -deflate\n"
    "    \tenable deflate feature negotiation (client compression) (default true)\n"
    "  -e2e-processing-latency-percentile value\n"
    "    \tmessage processing time percentiles (can be specified multiple times)\n"
    "  -lookupd-tcp-address value\n"
    "    \tlookupd TCP address (may be given multiple times)\n"
    "  -max-channel-consumers int\n"
    "    \tmaximum channel consumer connection count per nsqd instance (default 0, i.e., "
    "unlimited)\n"
    "  -msg-timeout duration\n"
    "    \tdefault duration to wait before auto-requeing a message (default 1m0s)\n"
    "  -n int\n"
    "    \ttotal messages\n"
    "    \tsecond line\n"
    "  -tcp-address string\n"
    "    \t<addr>:<port> to listen on for TCP clients (default \"0.0.0.0:4150\")\n"
    "  -v\tshort bool\n"
    "  -verbose\n"
    "    \t[deprecated] has no effect, use --log-level\n"
    "  -version\n"
    "    \tprint version string\n";

const FlagDoc* find(const std::vector<FlagDoc>& flags, const std::string& name) {
  for (const FlagDoc& f : flags) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(UsageText, ReadsNamesTypesUsagesAndDefaults) {
  const auto flags = parse_go_usage(kUsage);
  ASSERT_EQ(flags.size(), 11u);
  const FlagDoc* tcp = find(flags, "tcp-address");
  ASSERT_NE(tcp, nullptr);
  EXPECT_EQ(tcp->type, "string");
  EXPECT_EQ(tcp->usage, "<addr>:<port> to listen on for TCP clients");
  EXPECT_EQ(tcp->default_text, "\"0.0.0.0:4150\"");
  EXPECT_EQ(find(flags, "deflate")->type, "");
  EXPECT_EQ(find(flags, "deflate")->default_text, "true");
  EXPECT_EQ(find(flags, "msg-timeout")->default_text, "1m0s");
  EXPECT_EQ(find(flags, "n")->usage, "total messages\nsecond line");
  EXPECT_EQ(find(flags, "v")->usage, "short bool");
}

TEST(UsageText, ADefaultInTheUsageWordsIsNotTheDefault) {
  const auto flags = parse_go_usage(kUsage);
  const FlagDoc* f = find(flags, "max-channel-consumers");
  EXPECT_EQ(f->default_text, "");
  EXPECT_EQ(f->usage,
            "maximum channel consumer connection count per nsqd instance (default 0, i.e., "
            "unlimited)");
  // The usage's own "(defaults to ...)" stays; the last one is the default.
  const FlagDoc* b = find(flags, "broadcast-address");
  EXPECT_EQ(b->default_text, "\"buildhost\"");
  EXPECT_EQ(b->usage, "address that will be registered with lookupd (defaults to the OS hostname)");
}

TEST(ManPage, EscapesRoffAndLeavesOutTheBuildHost) {
  const auto flags = parse_go_usage(kUsage);
  const std::string page = render_man_page(ManPage{"nsqd",
                                                   "the NSQ daemon",
                                                   {"first.", ".starts with a dot"},
                                                   "nsq-cpp 1.3.0",
                                                   "/etc/nsq/nsqd.conf",
                                                   {"nsqlookupd(1)", "nsqadmin(1)"}},
                                           flags);
  EXPECT_NE(page.find(".TH NSQD 1 \"\" \"nsq\\-cpp 1.3.0\" \"User Commands\"\n"),
            std::string::npos);
  EXPECT_NE(page.find(".SH NAME\nnsqd \\- the NSQ daemon\n"), std::string::npos);
  EXPECT_NE(page.find("first.\n.PP\n\\&.starts with a dot\n"), std::string::npos);
  EXPECT_NE(page.find(".TP\n\\fB\\-\\-tcp\\-address\\fR \\fIstring\\fR\n<addr>:<port> to listen on "
                      "for TCP clients (default \"0.0.0.0:4150\")\n"),
            std::string::npos);
  EXPECT_EQ(page.find("buildhost"), std::string::npos);
  EXPECT_NE(page.find(".SH FILES\n.TP\n.I /etc/nsq/nsqd.conf\n"), std::string::npos);
  EXPECT_NE(page.find(".BR nsqlookupd (1) ,\n.BR nsqadmin (1)\n"), std::string::npos);
  EXPECT_EQ(roff_escape("a\\b-c\n'd"), "a\\eb\\-c\n\\&'d");
}

TEST(ConfigTemplate, EveryOptionCommentedWithItsDefaultAndGoKeys) {
  const auto flags = parse_go_usage(kUsage);
  ConfigTemplate config{"nsqd", "/etc/nsq/nsqd.conf", "nsq-cpp 1.3.0", {}};
  config.active["msg_timeout"] = "\"2m\"";
  const std::string text = render_config(config, flags);
  EXPECT_NE(text.find("\n# <addr>:<port> to listen on for TCP clients\n# tcp_address = "
                      "\"0.0.0.0:4150\"\n"),
            std::string::npos);
  EXPECT_NE(text.find("\n# deflate = true\n"), std::string::npos);
  EXPECT_NE(text.find("\n# max_channel_consumers = 0\n"), std::string::npos);
  EXPECT_NE(text.find("\n# nsqlookupd_tcp_addresses = []\n"), std::string::npos);
  EXPECT_NE(text.find("\n# e2e_processing_latency_percentiles = []\n"), std::string::npos);
  EXPECT_NE(text.find("\n# n = 0\n"), std::string::npos);
  EXPECT_NE(text.find("\n# broadcast_address = <computed on each machine>\n"), std::string::npos);
  EXPECT_NE(text.find("(set here by the package; the default is \"1m0s\")\nmsg_timeout = \"2m\"\n"),
            std::string::npos);
  // Command flags and deprecated no-ops are not options.
  EXPECT_EQ(text.find("version"), std::string::npos);
  EXPECT_EQ(text.find("verbose"), std::string::npos);
}

TEST(ConfigTemplate, KeysAreGoCfgTags) {
  EXPECT_EQ(config_key("tcp-address"), "tcp_address");
  EXPECT_EQ(config_key("node-id"), "id");
  EXPECT_EQ(config_key("lookupd-http-address"), "nsqlookupd_http_addresses");
  EXPECT_EQ(config_key("admin-user"), "admin_users");
}

}  // namespace
}  // namespace nsq::docgen
