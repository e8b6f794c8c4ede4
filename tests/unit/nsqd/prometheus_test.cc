#include "stats/prometheus.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace nsq::nsqd {
namespace {

// A strict checker of the Prometheus text format 0.0.4, as far as our output
// is concerned: returns "" when valid, else the first problem with its line.
class ExpositionChecker {
 public:
  std::string check(const std::string& text) {
    if (text.empty()) return "empty exposition";
    if (text.back() != '\n') return "last line not terminated by \\n";
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      const std::string err = check_line(line);
      if (!err.empty()) return "line " + std::to_string(n) + ": " + err + ": " + line;
    }
    for (const auto& [name, f] : families_) {
      if (!f.has_type) return "family without # TYPE: " + name;
      if (!f.has_help) return "family without # HELP: " + name;
      if (f.samples == 0) return "family without samples: " + name;
    }
    return "";
  }

  std::size_t samples() const { return series_.size(); }

 private:
  struct Family {
    std::string type;
    bool has_help = false;
    bool has_type = false;
    int samples = 0;
  };

  static bool valid_metric_name(const std::string& s) {
    static const std::regex re("[a-zA-Z_:][a-zA-Z0-9_:]*");
    return std::regex_match(s, re);
  }

  static bool valid_value(const std::string& s) {
    static const std::regex re(
        R"(NaN|[+-]Inf|[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)");
    return std::regex_match(s, re);
  }

  std::string open_family(const std::string& name) {
    if (name != current_) {
      if (closed_.count(name) != 0) return "family " + name + " is not one contiguous group";
      if (!current_.empty()) closed_.insert(current_);
      current_ = name;
    }
    return "";
  }

  std::string check_line(const std::string& line) {
    if (line.empty()) return "blank line";
    if (line[0] == '#') return check_comment(line);
    return check_sample(line);
  }

  std::string check_comment(const std::string& line) {
    std::istringstream in(line);
    std::string hash, kind, name;
    in >> hash >> kind >> name;
    if (hash != "#" || (kind != "HELP" && kind != "TYPE")) return "comment other than HELP/TYPE";
    if (!valid_metric_name(name)) return "bad metric name in comment";
    if (line.compare(0, 7 + name.size() + 1, "# " + kind + " " + name + " ") != 0) {
      return "comment not of the form '# KIND name text'";
    }
    const std::string rest = line.substr(7 + name.size() + 1);
    auto err = open_family(name);
    if (!err.empty()) return err;
    Family& f = families_[name];
    if (kind == "HELP") {
      if (f.has_help) return "second HELP";
      if (rest.empty()) return "empty HELP";
      for (std::size_t i = 0; i < rest.size(); ++i) {
        if (rest[i] == '\\' &&
            (i + 1 == rest.size() || (rest[i + 1] != '\\' && rest[i + 1] != 'n'))) {
          return "bad escape in HELP";
        }
        if (rest[i] == '\\') ++i;
      }
      f.has_help = true;
    } else {
      if (f.has_type) return "second TYPE";
      if (f.samples != 0) return "TYPE after samples";
      static const std::set<std::string> types = {"counter", "gauge", "histogram", "summary",
                                                  "untyped"};
      if (types.count(rest) == 0) return "unknown type";
      f.type = rest;
      f.has_type = true;
    }
    return "";
  }

  std::string check_sample(const std::string& line) {
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    const std::string name = line.substr(0, i);
    if (!valid_metric_name(name)) return "bad metric name";
    std::map<std::string, std::string> labels;
    if (i < line.size() && line[i] == '{') {
      ++i;
      bool first = true;
      while (true) {
        if (i >= line.size()) return "unterminated label set";
        if (line[i] == '}') {
          if (!first) return "trailing comma or empty label";
          ++i;
          break;
        }
        if (!first) {
          if (line[i] != ',') return "missing comma";
          ++i;
        }
        std::size_t j = i;
        while (j < line.size() && line[j] != '=') ++j;
        const std::string lname = line.substr(i, j - i);
        static const std::regex lre("[a-zA-Z_][a-zA-Z0-9_]*");
        if (!std::regex_match(lname, lre) || lname.rfind("__", 0) == 0) return "bad label name";
        if (j + 1 >= line.size() || line[j + 1] != '"') return "label value not quoted";
        i = j + 2;
        std::string value;
        while (true) {
          if (i >= line.size()) return "unterminated label value";
          const char c = line[i];
          if (c == '"') break;
          if (c == '\\') {
            if (i + 1 >= line.size()) return "dangling escape";
            const char e = line[i + 1];
            if (e == '\\')
              value += '\\';
            else if (e == '"')
              value += '"';
            else if (e == 'n')
              value += '\n';
            else
              return "bad escape in label value";
            i += 2;
            continue;
          }
          value += c;
          ++i;
        }
        ++i;  // closing quote
        if (!labels.emplace(lname, value).second) return "duplicate label name";
        first = false;
        if (i < line.size() && line[i] == '}') {
          ++i;
          break;
        }
      }
    }
    if (i >= line.size() || line[i] != ' ') return "no space before value";
    ++i;
    const std::string rest = line.substr(i);
    const auto sp = rest.find(' ');
    const std::string value = rest.substr(0, sp);
    if (!valid_value(value)) return "bad value '" + value + "'";
    if (sp != std::string::npos) {
      static const std::regex ts("-?[0-9]+");
      if (!std::regex_match(rest.substr(sp + 1), ts)) return "bad timestamp";
    }

    // Which family: the name itself, or a summary/histogram suffix.
    std::string family = name;
    if (families_.count(family) == 0) {
      for (const std::string suffix : {"_sum", "_count", "_bucket"}) {
        if (name.size() > suffix.size() && name.ends_with(suffix)) {
          family = name.substr(0, name.size() - suffix.size());
          break;
        }
      }
    }
    auto it = families_.find(family);
    if (it == families_.end() || !it->second.has_type) return "sample before its # TYPE";
    if (family != current_) return "sample outside its family's group";
    Family& f = it->second;
    const bool base = name == family;
    if (f.type == "counter") {
      if (!base) return "counter sample with a suffix";
      if (!name.ends_with("_total")) return "counter without _total";
      if (value == "NaN" || value[0] == '-') return "negative or NaN counter";
    }
    if (f.type == "gauge" || f.type == "counter") {
      if (labels.count("quantile") != 0 || labels.count("le") != 0) return "reserved label";
      if (name.ends_with("_count") || name.ends_with("_sum") || name.ends_with("_bucket")) {
        return "reserved suffix on a " + f.type;
      }
    }
    if (f.type == "summary" && base) {
      if (labels.count("quantile") == 0) return "summary sample without quantile";
      const double q = std::strtod(labels["quantile"].c_str(), nullptr);
      if (!(q >= 0 && q <= 1)) return "quantile out of [0,1]";
    }
    std::string key = name;
    for (const auto& [k, v] : labels) key += "\x1f" + k + "=" + v;
    if (!series_.insert(key).second) return "duplicate series";
    ++f.samples;
    return "";
  }

  std::map<std::string, Family> families_;
  std::set<std::string> closed_;
  std::string current_;
  std::set<std::string> series_;
};

stats::Snapshot full_snapshot() {
  stats::Snapshot s;
  s.start_time = 1700000000;
  s.memory = stats::Memory{1, 2, 3, 4, 500, 400, 300, 8, 9};
  for (const char* topic : {"orders", "weird\"name\\with\nstuff", "x#ephemeral"}) {
    stats::Topic t;
    t.name = topic;
    t.depth = 3;
    t.backend_depth = 1;
    t.message_count = 10;
    t.message_bytes = 1000;
    t.e2e.configured = true;
    t.e2e.count = 4;
    t.e2e.percentiles = {{1.0, 2.5e9}, {0.99, 1.5e6}, {0.99, 1.5e6}};  // duplicate quantile
    for (const char* channel : {"a", "b#ephemeral"}) {
      stats::Channel c;
      c.name = channel;
      c.client_count = 2;
      c.message_count = 9;
      c.e2e.configured = true;
      c.e2e.count = 0;
      c.e2e.percentiles = {{0.5, 0.0}};
      c.paused = true;
      t.channels.push_back(c);
    }
    s.topics.push_back(t);
  }
  s.producers.resize(2);
  return s;
}

TEST(PrometheusFormat, EscapingAndValues) {
  EXPECT_EQ(prometheus::escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus::format_value(3), "3");
  EXPECT_EQ(prometheus::format_value(-2), "-2");
  EXPECT_EQ(prometheus::format_value(100000), "100000");
  EXPECT_EQ(prometheus::format_value(0.0015), "0.0015");
  EXPECT_EQ(prometheus::format_value(2.5e-9), "2.5e-09");
  EXPECT_EQ(prometheus::format_value(1e300), "1e+300");
  EXPECT_EQ(prometheus::format_value(std::nan("")), "NaN");
  EXPECT_EQ(prometheus::format_value(HUGE_VAL), "+Inf");
  EXPECT_EQ(prometheus::format_value(-HUGE_VAL), "-Inf");
}

TEST(Prometheus, MinimalSnapshot) {
  stats::Snapshot s;
  s.start_time = 42;
  s.health = "NOK - broken";
  const auto out = render_prometheus(s);
  EXPECT_EQ(out,
            "# HELP nsq_up 1 when nsqd answered this scrape.\n"
            "# TYPE nsq_up gauge\n"
            "nsq_up 1\n"
            "# HELP nsq_health 1 when nsqd reports its health as OK, else 0.\n"
            "# TYPE nsq_health gauge\n"
            "nsq_health 0\n"
            "# HELP nsq_draining 1 while nsqd drains (refuses new messages, delivers the queued "
            "ones, exits).\n"
            "# TYPE nsq_draining gauge\n"
            "nsq_draining 0\n"
            "# HELP nsq_info nsqd version, as a label; always 1.\n"
            "# TYPE nsq_info gauge\n"
            "nsq_info{version=\"1.3.0\"} 1\n"
            "# HELP nsq_start_time_seconds Start time of nsqd since the Unix epoch in seconds.\n"
            "# TYPE nsq_start_time_seconds gauge\n"
            "nsq_start_time_seconds 42\n"
            "# HELP nsq_clients Consumers subscribed to a channel.\n"
            "# TYPE nsq_clients gauge\n"
            "nsq_clients 0\n"
            "# HELP nsq_producers TCP connections that have published at least once.\n"
            "# TYPE nsq_producers gauge\n"
            "nsq_producers 0\n");
  ExpositionChecker checker;
  EXPECT_EQ(checker.check(out), "");
}

TEST(Prometheus, FullSnapshotSamples) {
  const auto out = render_prometheus(full_snapshot());
  ExpositionChecker checker;
  EXPECT_EQ(checker.check(out), "") << out;
  auto has = [&out](const std::string& line) { return out.find(line + "\n") != std::string::npos; };
  EXPECT_TRUE(has("nsq_health 1"));
  EXPECT_TRUE(has("nsq_clients 12"));
  EXPECT_TRUE(has("nsq_producers 2"));
  EXPECT_TRUE(has("# TYPE nsq_topic_messages_total counter"));
  EXPECT_TRUE(has("nsq_topic_messages_total{topic=\"orders\"} 10"));
  EXPECT_TRUE(has("nsq_topic_message_bytes_total{topic=\"orders\"} 1000"));
  EXPECT_TRUE(has("nsq_topic_depth{topic=\"orders\"} 3"));
  EXPECT_TRUE(has("nsq_topic_paused{topic=\"orders\"} 0"));
  EXPECT_TRUE(has("nsq_topic_depth{topic=\"weird\\\"name\\\\with\\nstuff\"} 3"));
  EXPECT_TRUE(has("nsq_channel_paused{topic=\"orders\",channel=\"a\"} 1"));
  EXPECT_TRUE(has("nsq_channel_clients{topic=\"x#ephemeral\",channel=\"b#ephemeral\"} 2"));
  EXPECT_TRUE(has("nsq_channel_messages_total{topic=\"orders\",channel=\"a\"} 9"));
  EXPECT_TRUE(has("# TYPE nsq_topic_e2e_processing_latency_seconds summary"));
  EXPECT_TRUE(has("nsq_topic_e2e_processing_latency_seconds{topic=\"orders\",quantile=\"1\"} 2.5"));
  EXPECT_TRUE(
      has("nsq_topic_e2e_processing_latency_seconds{topic=\"orders\",quantile=\"0.99\"} 0.0015"));
  EXPECT_TRUE(has("nsq_topic_e2e_processing_latency_window_samples{topic=\"orders\"} 4"));
  EXPECT_TRUE(
      has("nsq_channel_e2e_processing_latency_seconds{topic=\"orders\",channel=\"a\",quantile=\"0."
          "5\"} NaN"));
  EXPECT_TRUE(has("nsq_memory_heap_in_use_bytes 3"));
  EXPECT_TRUE(has("nsq_memory_gc_pause_seconds{quantile=\"1\"} 0.0005"));
  EXPECT_TRUE(has("nsq_memory_gc_runs_total 9"));
  // HELP and TYPE once per family.
  std::size_t pos = 0;
  int types = 0;
  while ((pos = out.find("# TYPE nsq_channel_depth ", pos)) != std::string::npos) {
    ++types;
    ++pos;
  }
  EXPECT_EQ(types, 1);
}

TEST(Prometheus, ReplicationOnlyInClusterMode) {
  auto s = full_snapshot();
  EXPECT_EQ(render_prometheus(s).find("replication"), std::string::npos);
  s.topics[0].replication = stats::Replication{"leader",
                                               4,
                                               "a:4150",
                                               {"a:4150", "b:4150", "c:4150"},
                                               {"a:4150", "b:4150"},
                                               {{"b:4150", 0}, {"c:4150", 1234}}};
  const auto out = render_prometheus(s);
  ExpositionChecker checker;
  EXPECT_EQ(checker.check(out), "") << out;
  const std::string t = "{topic=\"" + s.topics[0].name + "\"}";
  auto has = [&out](const std::string& line) { return out.find(line + "\n") != std::string::npos; };
  EXPECT_TRUE(has("nsq_topic_replication_leader" + t + " 1")) << out;
  EXPECT_TRUE(has("nsq_topic_replication_epoch" + t + " 4"));
  EXPECT_TRUE(has("nsq_topic_replication_replicas" + t + " 3"));
  EXPECT_TRUE(has("nsq_topic_replication_in_sync_replicas" + t + " 2"));
  EXPECT_TRUE(has("nsq_topic_replication_lag_messages{topic=\"" + s.topics[0].name +
                  "\",replica=\"c:4150\"} 1234"));
}

TEST(Prometheus, DeliveriesByLocalityOnlyWithTopologyAwareConsumption) {
  auto s = full_snapshot();
  EXPECT_EQ(render_prometheus(s).find("locality"), std::string::npos);
  auto& c = s.topics[0].channels[0];
  c.zone_local_msg_count = 7;
  c.global_msg_count = 2;
  const auto out = render_prometheus(s);
  ExpositionChecker checker;
  EXPECT_EQ(checker.check(out), "") << out;
  const std::string l = "nsq_channel_deliveries_by_locality_total{topic=\"" + s.topics[0].name +
                        "\",channel=\"" + c.name + "\",locality=";
  EXPECT_NE(out.find(l + "\"zone\"} 7\n"), std::string::npos) << out;
  EXPECT_NE(out.find(l + "\"region\"} 0\n"), std::string::npos);
  EXPECT_NE(out.find(l + "\"global\"} 2\n"), std::string::npos);
}

TEST(Prometheus, DeadLetterCounters) {
  auto s = full_snapshot();
  auto& c = s.topics[0].channels[0];
  c.expired_count = 4;
  c.dead_letter_count = 3;
  c.discarded_count = 1;
  const auto out = render_prometheus(s);
  EXPECT_EQ(ExpositionChecker().check(out), "") << out;
  const std::string l = "{topic=\"" + s.topics[0].name + "\",channel=\"" + c.name + "\"} ";
  EXPECT_NE(out.find("nsq_channel_expired_total" + l + "4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("nsq_channel_dead_letters_total" + l + "3\n"), std::string::npos);
  EXPECT_NE(out.find("nsq_channel_discarded_total" + l + "1\n"), std::string::npos);
}

TEST(Prometheus, DrainingGauge) {
  auto s = full_snapshot();
  EXPECT_NE(render_prometheus(s).find("\nnsq_draining 0\n"), std::string::npos);
  s.draining = true;
  const auto out = render_prometheus(s);
  EXPECT_EQ(ExpositionChecker().check(out), "") << out;
  EXPECT_NE(out.find("\nnsq_draining 1\n"), std::string::npos);
}

TEST(Prometheus, NoClientsOmitsProducerCount) {
  auto s = full_snapshot();
  s.include_clients = false;
  s.memory.reset();
  const auto out = render_prometheus(s);
  ExpositionChecker checker;
  EXPECT_EQ(checker.check(out), "");
  EXPECT_EQ(out.find("nsq_producers"), std::string::npos);
  EXPECT_EQ(out.find("nsq_memory"), std::string::npos);
}

TEST(PrometheusChecker, RejectsBrokenExpositions) {
  auto bad = [](const std::string& text) { return !ExpositionChecker().check(text).empty(); };
  const std::string ok = "# HELP a_total h\n# TYPE a_total counter\na_total 1\n";
  EXPECT_FALSE(bad(ok));
  EXPECT_TRUE(bad("a_total 1\n"));                                        // no TYPE
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na 1"));                    // no final \n
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na{x=\"1\",} 1\n"));        // trailing comma
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na{x=\"\\t\"} 1\n"));       // bad escape
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na{x=1} 1\n"));             // unquoted
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na 1\na 2\n"));             // duplicate series
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na one\n"));                // bad value
  EXPECT_TRUE(bad("# HELP 1a h\n# TYPE 1a gauge\n1a 1\n"));               // bad name
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na{quantile=\"1\"} 1\n"));  // quantile on gauge
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a counter\na 1\n"));                // counter w/o _total
  EXPECT_TRUE(
      bad("# HELP a h\n# TYPE a gauge\na 1\n# HELP b h\n# TYPE b gauge\nb 1\na{x=\"y\"} 1\n"));
  EXPECT_TRUE(bad("# HELP a h\na 1\n# TYPE a gauge\n"));                   // TYPE after sample
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\n# TYPE a gauge\na 1\n"));   // second TYPE
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\n\na 1\n"));                 // blank line
  EXPECT_TRUE(bad("# HELP a h\n# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n"));  // duplicate label
}

// Validates with the real promtool when it is installed (Debian package
// "prometheus"); skipped otherwise.
TEST(Prometheus, PromtoolCheckMetrics) {
  std::string promtool;
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
    const std::string p = std::string(dir) + "/promtool";
    if (::access(p.c_str(), X_OK) == 0) {
      promtool = p;
      break;
    }
  }
  if (promtool.empty()) GTEST_SKIP() << "promtool not installed";
  const auto path = std::filesystem::temp_directory_path() /
                    ("nsq_metrics_" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream f(path);
    f << render_prometheus(full_snapshot());
  }
  const std::string cmd = promtool + " check metrics < " + path.string() + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string output;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p) != nullptr) output += buf;
  const int status = ::pclose(p);
  std::filesystem::remove(path);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "");
}

}  // namespace
}  // namespace nsq::nsqd
