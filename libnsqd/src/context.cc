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

std::error_code perform_disk_writes_inline(DiskWrites& writes) {
  std::error_code first;
  std::size_t done = 0;
  for (; done < writes.size(); ++done) {
    DiskWrite& w = writes[done];
    if (w.durability != diskqueue::Durability::written) break;
    std::vector<std::string_view> views(w.records.begin(), w.records.end());
    std::error_code ec = w.queue->try_put_batch(views);
    if (ec == diskqueue::errc::busy) break;
    if (w.done) w.done(ec);
    if (ec && !first) first = ec;
  }
  writes.erase(writes.begin(), writes.begin() + static_cast<std::ptrdiff_t>(done));
  return first;
}

std::int64_t unix_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace nsq::nsqd
