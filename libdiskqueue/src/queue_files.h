#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nsq::diskqueue {

// The names of one queue's files in its directory, and the listing and
// deletion of its segments (docs/diskqueue_format.md). Immutable: any
// thread may use it.
class QueueFiles {
 public:
  QueueFiles(std::filesystem::path dir, std::string name);

  // DIR/NAME.diskqueue.%06d.dat
  std::filesystem::path segment_path(std::int64_t file_num) const;
  // DIR/NAME.diskqueue.meta.dat
  std::filesystem::path meta_path() const;

  // The numbers of the segment files there are, ascending. Reads the
  // directory rather than trying every number: a corrupt checkpoint can name
  // file numbers millions apart.
  std::vector<std::int64_t> segment_numbers() const;
  bool segment_exists(std::int64_t file_num) const;

  // Deletes the segments numbered first..last that exist.
  void remove_segments(std::int64_t first, std::int64_t last) const;
  // Deletes the segments right below `file_num`, down to the first missing one.
  void remove_segments_below(std::int64_t file_num) const;

 private:
  std::filesystem::path dir_;
  std::string name_;
};

}  // namespace nsq::diskqueue
