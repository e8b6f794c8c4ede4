// A topic's replica log (cluster/replica_log.h) opened over arbitrary bytes:
// the input becomes a segment file and an epochs file, and opening must
// repair rather than fail or crash. Invariants: the repaired log ends within
// the bytes given, its records read back whole and valid from its start,
// and every epoch it keeps began within it. parse_records on the raw bytes
// never consumes more than it was given.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "cluster/replica_log.h"

namespace {

namespace cluster = nsq::nsqd::cluster;

const std::filesystem::path& dir() {
  static const std::filesystem::path d = [] {
    auto p =
        std::filesystem::temp_directory_path() / ("fuzz_replica_log." + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p;
  }();
  return d;
}

void write(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::size_t kMaxRecord = 4096;
  const auto parsed = cluster::parse_records(input, kMaxRecord);
  if (parsed.consumed > input.size()) std::abort();

  // The first line (up to '\n') is the epochs file, the rest the segment.
  const std::size_t eol = input.find('\n');
  const std::string_view epochs = eol == std::string_view::npos ? "" : input.substr(0, eol + 1);
  const std::string_view segment = eol == std::string_view::npos ? input : input.substr(eol + 1);
  std::filesystem::remove_all(dir());
  std::filesystem::create_directories(dir());
  write(dir() / "t.replica.00000000000000000000.log", segment);
  write(dir() / "t.replica.epochs", epochs);

  auto opened = cluster::ReplicaLog::open({dir(), "t", 1 << 20, kMaxRecord});
  if (!opened) return 0;  // an I/O error, not a parse one
  const auto& log = *opened->log;
  if (log.start() != 0 || log.end() > segment.size()) std::abort();
  for (std::uint64_t at = log.start(); at < log.end();) {
    auto bytes = log.read(at, 1000);
    if (!bytes || bytes->empty()) std::abort();
    const auto records = cluster::parse_records(*bytes, kMaxRecord);
    if (records.corrupt || records.consumed != bytes->size()) std::abort();
    at += bytes->size();
  }
  if (log.end_of_epoch(log.last_epoch()) != log.end()) std::abort();
  return 0;
}
