// The bodies of CLUSTER_FETCH (cluster/replication_wire.h): a
// follower's request as the leader reads it, the leader's answer as a
// follower reads it, the frames around answers (cluster/fetch_stream.h),
// and the delivery progress an answer carries (and a replica saves,
// cluster/progress.h). The first byte picks which.
// Invariants: what decodes encodes back to the same bytes, and decodes
// again to the same value; a decoded offset set holds its ranges' starts
// and not their ends.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cluster/fetch_stream.h"
#include "cluster/progress.h"
#include "cluster/replication_wire.h"

namespace cluster = nsq::nsqd::cluster;
namespace wire = nsq::nsqd::cluster::wire;

namespace {

void check_set(const cluster::OffsetSet& set) {
  if (set.cursor() > 0 && !set.contains(set.cursor() - 1)) std::abort();
  for (const auto& [begin, end] : set.ranges()) {
    if (!set.contains(begin) || !set.contains(end - 1) || set.contains(end)) std::abort();
  }
}

void fuzz_progress(std::string_view bytes) {
  auto progress = cluster::decode_progress(bytes);
  if (!progress) return;
  if (cluster::encode(*progress) != bytes) std::abort();
  check_set(progress->handed);
  for (const auto& [name, c] : progress->channels) check_set(c.finished);
  if (progress->low_water() > progress->handed.cursor()) std::abort();
}

// Frames one after another, as a follower reads them: each takes bytes it
// was given, an answer's body lies inside its frame.
void fuzz_frames(std::string_view bytes) {
  constexpr std::size_t kMaxAnswer = 1 << 16;
  for (;;) {
    const cluster::AnswerFrame frame = cluster::next_answer_frame(bytes, kMaxAnswer);
    if (frame.kind == cluster::AnswerFrame::Kind::need_more) return;
    if (frame.kind == cluster::AnswerFrame::Kind::error) {
      if (frame.text.empty()) std::abort();
      return;
    }
    if (frame.consumed < 8 || frame.consumed > bytes.size()) std::abort();
    if (frame.kind == cluster::AnswerFrame::Kind::answer) {
      if (frame.body.size() + 12 != frame.consumed || frame.body.data() != bytes.data() + 12) {
        std::abort();
      }
      (void)wire::decode_answers(frame.body);
    }
    bytes.remove_prefix(frame.consumed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 4) {
    fuzz_frames(body);
  } else if (data[0] & 2) {
    fuzz_progress(body);
  } else if (data[0] & 1) {
    auto request = wire::decode_request(body);
    if (!request) return 0;
    const std::string again = wire::encode(*request);
    if (again != body) std::abort();
    auto back = wire::decode_request(again);
    if (!back || !(*back == *request)) std::abort();
  } else {
    auto answers = wire::decode_answers(body);
    if (!answers) return 0;
    const std::string again = wire::encode(*answers);
    if (again != body) std::abort();
    auto back = wire::decode_answers(again);
    if (!back || !(*back == *answers)) std::abort();
    for (const auto& a : *answers) fuzz_progress(a.progress);
  }
  return 0;
}
