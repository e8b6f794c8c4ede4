// Two modes, chosen by the first byte:
// - 0xFF: an op sequence (puts, durable puts, reads, read commits, reopen,
//   empty, sync) on a queue with manual_read_commit, checked against a
//   std::deque oracle (peek_each included); see run_ops.
// - otherwise, arbitrary files: feeds segment and meta files to a DiskQueue
//   and reads it dry. Layout: [1 byte meta length M][M bytes meta][rest:
//   segment 0, then a 0xFF 0xFE separator splits further segments].
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "diskqueue/disk_queue.h"

namespace {

void write(const std::filesystem::path& p, std::string_view data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

std::filesystem::path make_dir() {
  // tmpfs where there is one: fsync there is free, so the fuzzer stays fast.
  char tmpl[] = "/dev/shm/fuzz-dq-XXXXXX";
  char fallback[] = "/tmp/fuzz-dq-XXXXXX";
  char* made = ::mkdtemp(tmpl);
  if (!made) made = ::mkdtemp(fallback);
  if (!made) return {};
  return made;
}

void check(bool ok) {
  if (!ok) std::abort();
}

// The oracle: `records` holds every record not yet committed, oldest first;
// the first `read` of them were read (their tokens in `tokens`). A reopen
// makes them unread again; a commit drops a prefix.
void run_ops(std::string_view ops) {
  using namespace nsq::diskqueue;
  std::filesystem::path dir = make_dir();
  if (dir.empty()) return;
  Options o;
  o.name = "ops";
  o.data_path = dir;
  o.min_msg_size = 1;
  o.max_msg_size = 300;
  o.max_bytes_per_file = 256;  // a segment every few records
  o.sync_every = 3;
  o.sync_timeout = std::chrono::milliseconds(0);
  o.manual_read_commit = true;
  auto opened = DiskQueue::open(o);
  check(opened.has_value());
  std::unique_ptr<DiskQueue> q = std::move(*opened);
  std::deque<std::string> records;
  std::deque<ReadToken> tokens;
  std::size_t read = 0;
  std::uint32_t next_id = 0;
  for (std::size_t i = 0; i + 1 < ops.size() && i < 400; i += 2) {
    auto arg = static_cast<unsigned char>(ops[i + 1]);
    switch (static_cast<unsigned char>(ops[i]) % 8) {
      case 0:
      case 1: {  // put (durable with op 1)
        std::string rec = std::to_string(next_id++) + ":" + std::string(arg, 'r');
        check(!q->put(rec, ops[i] % 8 == 1 ? Durability::fsync : Durability::written));
        records.push_back(std::move(rec));
        break;
      }
      case 2:
      case 3: {  // read up to arg % 4 + 1 records
        auto got = q->read_records(arg % 4 + 1, 1 << 20);
        for (auto& r : got) {
          check(read < records.size() && r.data == records[read]);
          tokens.push_back(r.token);
          ++read;
        }
        check(!got.empty() || read == records.size());
        break;
      }
      case 4: {  // commit the arg-th read record (and all before it)
        if (read == 0) break;
        std::size_t k = arg % read;
        check(!q->commit_read(tokens[k]));
        records.erase(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(k + 1));
        tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(k + 1));
        read -= k + 1;
        break;
      }
      case 5: {  // close and reopen: uncommitted reads come back
        check(!q->close());
        q.reset();
        auto again = DiskQueue::open(o);
        check(again.has_value());
        q = std::move(*again);
        tokens.clear();
        read = 0;
        break;
      }
      case 6:  // sync: segments behind the commit are gone
        check(!q->sync());
        if (auto p = q->positions(); p.commit_file_num > 0) {
          check(!std::filesystem::exists(q->segment_path(p.commit_file_num - 1)));
        }
        break;
      case 7:
        if (arg % 4 == 0) {
          check(!q->empty());
          records.clear();
          tokens.clear();
          read = 0;
        }
        break;
    }
    check(q->depth() == static_cast<std::int64_t>(records.size() - read));
    check(q->uncommitted() == static_cast<std::int64_t>(read));
    // peek_each sees exactly the unread records, and moves nothing.
    std::size_t seen = read;
    q->peek_each(1000, 1 << 20, [&](std::string_view d) {
      check(seen < records.size() && d == records[seen]);
      ++seen;
    });
    check(seen == records.size());
  }
  q.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace nsq::diskqueue;
  if (size < 1) return 0;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (static_cast<unsigned char>(in[0]) == 0xFF) {
    run_ops(in.substr(1));
    return 0;
  }
  std::size_t meta_len = static_cast<unsigned char>(in[0]);
  in.remove_prefix(1);
  meta_len = std::min(meta_len, in.size());
  std::string_view meta = in.substr(0, meta_len);
  in.remove_prefix(meta_len);

  std::filesystem::path dir = make_dir();
  if (dir.empty()) return 0;
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
    (*q)->peek_each(100, 1 << 20, [](std::string_view d) {
      if (d.empty() || d.size() > 4096) std::abort();  // within the limits, as reads
    });
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
