#include "context.h"

namespace nsq::nsqd {

std::error_code perform_disk_writes(DiskWrites& writes) {
  std::error_code first;
  for (DiskWrite& w : writes) {
    std::vector<std::string_view> views(w.records.begin(), w.records.end());
    std::error_code ec = w.queue->put_batch(views, w.durability);
    if (w.done) w.done(ec);
    if (ec && !first) first = ec;
  }
  return first;
}

std::int64_t unix_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace nsq::nsqd
