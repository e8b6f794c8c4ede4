#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster_types.h"

// JSON of nsqadmin's API answers, in Go's field names and order. An empty
// list is written as null, as Go marshals a nil slice.
namespace nsq::admin {

// A JSON object under construction: small wrapper so handlers do not include
// RapidJSON's writer templates.
class JsonOut {
 public:
  JsonOut();
  ~JsonOut();
  JsonOut(const JsonOut&) = delete;
  JsonOut& operator=(const JsonOut&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view k);
  void string(std::string_view v);
  void integer(long long v);
  void real(double v);
  void boolean(bool v);
  void null();
  void strings(const std::vector<std::string>& v);  // null when empty
  void raw(std::string_view json);                  // a value that is JSON already

  void producer(const Producer& p);
  void producers(const std::vector<Producer>& v);
  void client(const ClientStats& c);
  void latency(const LatencyAggregate& e);
  void channel(const ChannelStats& c);
  void topic(const TopicStats& t);
  // nsqd's /stats "replication" object, as nsqd writes it.
  void replication(const stats::Replication& r);
  // Go's omitempty: nothing when empty or zero.
  void optional_string(std::string_view k, const std::string& v);
  void locality_counts(std::uint64_t zone, std::uint64_t region, std::uint64_t global);
  // The fields of a stats object without the braces (Go embeds the struct in
  // the answer next to "message").
  void channel_fields(const ChannelStats& c);
  void topic_fields(const TopicStats& t);

  std::string take();  // the text written so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// {"message": text}: Go's error answer.
std::string message_json(std::string_view text);

}  // namespace nsq::admin
