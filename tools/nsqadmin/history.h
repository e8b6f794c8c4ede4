#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// nsqadmin's short memory of the cluster: what its poller saw at each
// interval, per topic, channel and node, so pages can draw rates and depths
// over time without Graphite. Everything lives in memory and is bounded: each
// series keeps a fixed number of rows (recent ones at full resolution, older
// ones averaged into coarser buckets) and the store keeps a fixed number of
// series, forgetting those whose topic, channel or node went away.
namespace nsq::admin {

// How much history to keep; the row counts follow from these.
struct HistoryShape {
  std::chrono::milliseconds interval{10'000};     // one sample per poll
  std::chrono::milliseconds duration{3'600'000};  // how far back a series reaches
  std::size_t max_series = 2000;                  // topics + channels + nodes

  // Recent samples kept as they are, then older ones in buckets of
  // coarse_factor() samples each. Both tiers are capped at kTierRows, so a
  // series never holds more than 2 * kTierRows rows whatever the flags say.
  static constexpr std::size_t kTierRows = 120;
  std::size_t total_samples() const;  // duration / interval, at least 1
  std::size_t fine_rows() const;
  std::size_t coarse_factor() const;  // samples per coarse bucket, >= 2 when there are buckets
  std::size_t coarse_rows() const;
};

// One series: rows of (time, one value per column). Columns are named
// ("rate", "depth", ...) and may appear later than the first row; missing
// values are NaN (JSON null). Not thread-safe (History guards it).
class SeriesBuffer {
 public:
  explicit SeriesBuffer(const HistoryShape& shape);

  // Appends a sample. Times are Unix milliseconds and should increase. When
  // the fine tier is full its oldest row moves into the coarse tier's current
  // bucket; a full bucket becomes one row (time of its first sample, each
  // column the mean of its non-NaN values).
  void push(std::int64_t t_ms, const std::vector<std::pair<std::string, double>>& values);

  struct View {
    std::vector<std::int64_t> times;                                   // oldest first
    std::vector<std::pair<std::string, std::vector<double>>> columns;  // same length as times
  };
  // Coarse rows, the partly filled bucket (its mean so far), then fine rows.
  View view() const;

  std::size_t rows() const;  // rows held, the bucket being filled counted as one
  std::int64_t last_time() const { return last_time_; }

 private:
  // A fixed-capacity ring of rows, column-major so a new column is one vector.
  struct Ring {
    std::size_t capacity = 0;
    std::size_t start = 0;  // index of the oldest row
    std::size_t size = 0;
    std::vector<std::int64_t> times;
    std::vector<std::vector<double>> values;  // [column][slot]

    std::size_t slot(std::size_t i) const { return (start + i) % capacity; }
    // Appends a row; returns false (and does nothing) when capacity is 0.
    bool push(std::int64_t t, const std::vector<double>& row);
    void add_column();
  };
  struct Bucket {
    std::size_t samples = 0;
    std::int64_t first_time = 0;
    std::vector<double> sum;
    std::vector<std::size_t> count;  // non-NaN values per column
  };

  std::size_t column(const std::string& name);
  std::vector<double> bucket_mean() const;
  void to_bucket(std::int64_t t, const std::vector<double>& row);

  std::size_t coarse_factor_;
  std::vector<std::string> names_;
  Ring fine_;
  Ring coarse_;
  Bucket bucket_;
  std::int64_t last_time_ = 0;
};

// The series of a cluster, by kind and name. What the poller records and
// the API reads.
//
// @par Thread Safety: every method may be called from any thread (one mutex,
// held only while copying in or out).
class History {
 public:
  enum class Kind { topic, channel, node };
  struct Key {
    Kind kind = Kind::topic;
    std::string name;     // topic, node (broadcast_address:http_port), or topic
    std::string channel;  // for channels only
    auto operator<=>(const Key&) const = default;
  };
  using Values = std::vector<std::pair<std::string, double>>;

  explicit History(HistoryShape shape);

  const HistoryShape& shape() const { return shape_; }

  // Adds one sample to key's series, creating it unless max_series are held
  // (then the sample is dropped and false returned: the ones already watched
  // keep their history rather than a new name pushing an old one out).
  bool record(const Key& key, std::int64_t t_ms, const Values& values);

  // Forgets the series not recorded since `cutoff_ms`: their topic, channel
  // or node is gone (or unreachable for that long).
  void forget_before(std::int64_t cutoff_ms);

  std::optional<SeriesBuffer::View> get(const Key& key) const;
  std::size_t series() const;

 private:
  const HistoryShape shape_;
  mutable std::mutex mu_;
  std::map<Key, SeriesBuffer> series_;  // guarded by mu_
};

}  // namespace nsq::admin
