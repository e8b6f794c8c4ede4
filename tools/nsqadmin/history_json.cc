#include "history_json.h"

#include <cmath>

#include "cluster_json.h"

namespace nsq::admin {

std::string history_json(const HistoryShape& shape, const SeriesBuffer::View& view) {
  JsonOut out;
  out.begin_object();
  out.key("interval_ms");
  out.integer(shape.interval.count());
  out.key("duration_ms");
  out.integer(shape.duration.count());
  out.key("time");
  out.begin_array();
  for (auto t : view.times) out.integer(t);
  out.end_array();
  out.key("series");
  out.begin_object();
  for (const auto& [name, values] : view.columns) {
    out.key(name);
    out.begin_array();
    for (double v : values) {
      if (std::isfinite(v)) {
        out.real(v);
      } else {
        out.null();  // JSON has no NaN
      }
    }
    out.end_array();
  }
  out.end_object();
  out.key("message");
  out.string("");
  out.end_object();
  return out.take();
}

}  // namespace nsq::admin
