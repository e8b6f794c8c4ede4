#include "history.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nsq::admin {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

std::size_t HistoryShape::total_samples() const {
  if (interval.count() <= 0) return 1;
  return std::max<std::size_t>(1, static_cast<std::size_t>(duration / interval));
}

std::size_t HistoryShape::fine_rows() const { return std::min(total_samples(), kTierRows); }

std::size_t HistoryShape::coarse_factor() const {
  const std::size_t rest = total_samples() - fine_rows();
  if (rest == 0) return 1;
  return std::max<std::size_t>(2, ceil_div(rest, kTierRows));
}

std::size_t HistoryShape::coarse_rows() const {
  const std::size_t rest = total_samples() - fine_rows();
  return rest == 0 ? 0 : ceil_div(rest, coarse_factor());
}

bool SeriesBuffer::Ring::push(std::int64_t t, const std::vector<double>& row) {
  if (capacity == 0) return false;
  std::size_t at;
  if (size < capacity) {
    at = slot(size);
    ++size;
  } else {
    at = start;  // the oldest row is overwritten
    start = (start + 1) % capacity;
  }
  times[at] = t;
  for (std::size_t c = 0; c < values.size(); ++c) values[c][at] = c < row.size() ? row[c] : kNaN;
  return true;
}

void SeriesBuffer::Ring::add_column() { values.emplace_back(capacity, kNaN); }

SeriesBuffer::SeriesBuffer(const HistoryShape& shape) : coarse_factor_(shape.coarse_factor()) {
  fine_.capacity = shape.fine_rows();
  fine_.times.resize(fine_.capacity);
  coarse_.capacity = shape.coarse_rows();
  coarse_.times.resize(coarse_.capacity);
}

std::size_t SeriesBuffer::column(const std::string& name) {
  // A handful of columns: a linear search beats a map here.
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return i;
  }
  names_.push_back(name);
  fine_.add_column();
  coarse_.add_column();
  bucket_.sum.push_back(0);
  bucket_.count.push_back(0);
  return names_.size() - 1;
}

void SeriesBuffer::push(std::int64_t t_ms,
                        const std::vector<std::pair<std::string, double>>& values) {
  std::vector<double> row(names_.size(), kNaN);
  for (const auto& [name, v] : values) {
    const std::size_t c = column(name);
    if (c >= row.size()) row.resize(c + 1, kNaN);
    row[c] = v;
  }
  last_time_ = t_ms;
  if (fine_.size == fine_.capacity && fine_.capacity > 0) {
    // The oldest fine row leaves full resolution: into the current bucket.
    const std::size_t old = fine_.start;
    std::vector<double> evicted(names_.size(), kNaN);
    for (std::size_t c = 0; c < fine_.values.size(); ++c) evicted[c] = fine_.values[c][old];
    to_bucket(fine_.times[old], evicted);
  }
  fine_.push(t_ms, row);
}

void SeriesBuffer::to_bucket(std::int64_t t, const std::vector<double>& row) {
  if (coarse_.capacity == 0) return;  // the duration fits in the fine tier
  if (bucket_.samples == 0) bucket_.first_time = t;
  ++bucket_.samples;
  for (std::size_t c = 0; c < row.size(); ++c) {
    if (std::isnan(row[c])) continue;
    bucket_.sum[c] += row[c];
    ++bucket_.count[c];
  }
  if (bucket_.samples < coarse_factor_) return;
  coarse_.push(bucket_.first_time, bucket_mean());
  bucket_.samples = 0;
  std::fill(bucket_.sum.begin(), bucket_.sum.end(), 0.0);
  std::fill(bucket_.count.begin(), bucket_.count.end(), 0);
}

std::vector<double> SeriesBuffer::bucket_mean() const {
  std::vector<double> mean(names_.size(), kNaN);
  for (std::size_t c = 0; c < mean.size(); ++c) {
    if (bucket_.count[c] > 0) mean[c] = bucket_.sum[c] / static_cast<double>(bucket_.count[c]);
  }
  return mean;
}

std::size_t SeriesBuffer::rows() const {
  return coarse_.size + (bucket_.samples > 0 ? 1 : 0) + fine_.size;
}

SeriesBuffer::View SeriesBuffer::view() const {
  View v;
  const std::size_t n = rows();
  v.times.reserve(n);
  v.columns.reserve(names_.size());
  for (const auto& name : names_) {
    v.columns.emplace_back(name, std::vector<double>());
    v.columns.back().second.reserve(n);
  }
  auto copy_ring = [&](const Ring& r) {
    for (std::size_t i = 0; i < r.size; ++i) {
      const std::size_t s = r.slot(i);
      v.times.push_back(r.times[s]);
      for (std::size_t c = 0; c < names_.size(); ++c) v.columns[c].second.push_back(r.values[c][s]);
    }
  };
  copy_ring(coarse_);
  if (bucket_.samples > 0) {
    v.times.push_back(bucket_.first_time);
    const auto mean = bucket_mean();
    for (std::size_t c = 0; c < names_.size(); ++c) v.columns[c].second.push_back(mean[c]);
  }
  copy_ring(fine_);
  return v;
}

History::History(HistoryShape shape) : shape_(shape) {}

bool History::record(const Key& key, std::int64_t t_ms, const Values& values) {
  std::lock_guard lock(mu_);
  auto it = series_.find(key);
  if (it == series_.end()) {
    if (series_.size() >= shape_.max_series) return false;
    it = series_.emplace(key, SeriesBuffer(shape_)).first;
  }
  it->second.push(t_ms, values);
  return true;
}

void History::forget_before(std::int64_t cutoff_ms) {
  std::lock_guard lock(mu_);
  std::erase_if(series_, [&](const auto& kv) { return kv.second.last_time() < cutoff_ms; });
}

std::optional<SeriesBuffer::View> History::get(const Key& key) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(key);
  if (it == series_.end()) return std::nullopt;
  return it->second.view();
}

std::size_t History::series() const {
  std::lock_guard lock(mu_);
  return series_.size();
}

}  // namespace nsq::admin
