// Feeds arbitrary segment and meta files to a DiskQueue and reads it dry.
// Input layout: [1 byte meta length M][M bytes meta][rest: segment 0, then a
// 0xFF 0xFE separator splits further segments].
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "diskqueue/disk_queue.h"

namespace {

void write(const std::filesystem::path& p, std::string_view data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nsq::diskqueue;
  if (size < 1) return 0;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::size_t meta_len = static_cast<unsigned char>(in[0]);
  in.remove_prefix(1);
  meta_len = std::min(meta_len, in.size());
  std::string_view meta = in.substr(0, meta_len);
  in.remove_prefix(meta_len);

  // tmpfs where there is one: fsync there is free, so the fuzzer stays fast.
  char tmpl[] = "/dev/shm/fuzz-dq-XXXXXX";
  char fallback[] = "/tmp/fuzz-dq-XXXXXX";
  char* made = ::mkdtemp(tmpl);
  if (!made) made = ::mkdtemp(fallback);
  if (!made) return 0;
  std::filesystem::path dir = made;
  write(dir / "f.diskqueue.meta.dat", meta);
  for (int seg = 0; seg < 8; ++seg) {
    auto sep = in.find("\xff\xfe");
    write(dir / ("f.diskqueue.00000" + std::to_string(seg) + ".dat"), in.substr(0, sep));
    if (sep == std::string_view::npos) break;
    in.remove_prefix(sep + 2);
  }

  Options o;
  o.name = "f";
  o.data_path = dir;
  o.min_msg_size = 1;
  o.max_msg_size = 4096;
  o.max_bytes_per_file = 512;
  o.sync_timeout = std::chrono::milliseconds(0);
  if (auto q = DiskQueue::open(o)) {
    for (int i = 0; i < 10000; ++i) {
      auto r = (*q)->try_read();
      if (!r) break;
      if (r->empty() || r->size() > 4096) std::abort();  // never out-of-limit data
    }
    (*q)->put("after");
    auto depth = (*q)->depth();
    if (depth < 0) std::abort();
    (*q)->close();
  }
  std::filesystem::remove_all(dir);
  return 0;
}
