#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

// nsq_to_file's file names: --filename-format with its tokens replaced
// (spec/tools.md §2, "File naming").
namespace nsq::to_file {

// What decides the per-topic name template.
struct FilenameSettings {
  std::string filename_format = "<TOPIC>.<HOST><REV>.<DATETIME>.log";
  std::string host_identifier;  // "" = the short hostname
  bool gzip = false;
  int64_t rotate_size = 0;
  std::chrono::nanoseconds rotate_interval{0};
  bool distinct_work_dir = false;  // --work-dir given and not --output-dir
};

// True when a file may need a new revision, so <REV> must be in the format:
// gzip, rotation or a distinct work dir.
bool revision_required(const FilenameSettings& settings);

// The error when <REV> is required but absent, Go's text.
inline constexpr std::string_view kMissingRevError =
    "missing <REV> in --filename-format when gzip, rotation, or work dir enabled";

// "<HOST>": --host-identifier with <SHORT_HOST> and <HOSTNAME> replaced, or
// the short hostname (up to the first '.') when it is empty.
std::string host_identifier(std::string_view identifier_flag, std::string_view hostname);

// The template for one topic: <TOPIC>, <HOST>, <PID> replaced; <REV> kept
// when required (else removed); <DATETIME> kept; ".gz" appended for gzip
// if missing. Error: kMissingRevError.
tl::expected<std::string, std::string> topic_filename_template(const FilenameSettings& settings,
                                                               std::string_view topic,
                                                               std::string_view hostname, long pid);

// Every occurrence of `token` replaced.
std::string replace_all(std::string_view text, std::string_view token, std::string_view value);

// <REV> as "-%06d" of rev.
std::string with_revision(std::string_view name, unsigned rev);

}  // namespace nsq::to_file
