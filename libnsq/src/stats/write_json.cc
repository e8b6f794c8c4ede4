#include <concepts>
#include <optional>
#include <vector>

#include "nsq/json/writer.h"
#include "nsq/stats/json.h"
#include "stats/json_fields.h"

namespace nsq::stats {
namespace {

// Appends the model as JSON, key by key as json_fields lists them. Every
// value is followed by ','; closing an object or array replaces the last one.
class Writer {
 public:
  // include_clients: the Snapshot's flag (clients and producers null when false).
  Writer(std::string& out, bool include_clients) : out_(out), include_clients_(include_clients) {}

  template <class T>
  void write_object(const T& v) {
    out_.push_back('{');
    json_fields::visit(v, *this);
    close('}');
  }

  void value(std::string_view key, const std::string& v) {
    json::append_key(out_, key);
    json::append_string(out_, v);
    out_.push_back(',');
  }
  void value(std::string_view key, bool v) {
    json::append_key(out_, key);
    json::append_bool(out_, v);
    out_.push_back(',');
  }
  void value(std::string_view key, double v) {
    json::append_key(out_, key);
    json::append_float(out_, v);
    out_.push_back(',');
  }
  template <std::integral T>
  requires(!std::same_as<T, bool>) void value(std::string_view key, T v) {
    json::append_key(out_, key);
    json::append_int(out_, v);
    out_.push_back(',');
  }

  template <class T>
  void omit_empty(std::string_view key, const T& v) {
    if (v != T{}) value(key, v);
  }
  template <class T>
  void omit_empty(std::string_view key, const std::vector<T>& v) {
    if (!v.empty()) list(key, v);
  }

  template <class T>
  void object(std::string_view key, const T& v) {
    json::append_key(out_, key);
    write_object(v);
    out_.push_back(',');
  }

  template <class T>
  void list(std::string_view key, const std::vector<T>& v) {
    list_or_null(key, v, false);
  }

  template <class T, class Flag>
  void nullable(std::string_view key, const std::vector<T>& v, json_fields::NullWhen<Flag> null) {
    list_or_null(key, v, null.flag == null.value);
  }

  template <class T>
  void optional(std::string_view key, const std::optional<T>& v) {
    if (v) object(key, *v);
  }

  void strings(std::string_view key, const std::vector<std::string>& v) {
    json::append_key(out_, key);
    out_.push_back('[');
    for (const auto& s : v) {
      json::append_string(out_, s);
      out_.push_back(',');
    }
    close(']');
    out_.push_back(',');
  }

  void counts(std::string_view key, const std::vector<std::pair<std::string, std::int64_t>>& v) {
    json::append_key(out_, key);
    out_.push_back('{');
    for (const auto& [name, n] : v) value(name, n);
    close('}');
    out_.push_back(',');
  }

  void clients(std::string_view key, const std::vector<Client>& v) {
    list_or_null(key, v, !include_clients_);
  }
  // Go appends producers to a nil slice: null when there are none too.
  void producers(std::string_view key, const std::vector<Client>& v) {
    list_or_null(key, v, !include_clients_ || v.empty());
  }

 private:
  template <class T>
  void list_or_null(std::string_view key, const std::vector<T>& v, bool null) {
    json::append_key(out_, key);
    if (null) {
      out_ += "null";
    } else {
      out_.push_back('[');
      for (const auto& element : v) {
        write_object(element);
        out_.push_back(',');
      }
      close(']');
    }
    out_.push_back(',');
  }

  void close(char bracket) {
    if (out_.back() == ',') {
      out_.back() = bracket;
    } else {
      out_.push_back(bracket);
    }
  }

  std::string& out_;
  bool include_clients_;
};

}  // namespace

std::string write_stats_json(const Snapshot& s) {
  std::string out;
  out.reserve(512);
  Writer(out, s.include_clients).write_object(s);
  return out;
}

}  // namespace nsq::stats
