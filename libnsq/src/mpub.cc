#include "nsq/mpub.h"

#include <algorithm>

#include <string>
#include <utility>

#include "nsq/endian.h"

namespace nsq {
namespace {

ProtocolError bad_body(std::string text) { return {"E_BAD_BODY", std::move(text), true}; }
ProtocolError bad_message(std::string text) { return {"E_BAD_MESSAGE", std::move(text), true}; }

}  // namespace

MpubReader::Status MpubReader::put(std::string_view buffered) {
  while (stage_ != Stage::done) {
    if (buffered.size() < need_) return Status::need_more;
    switch (stage_) {
      case Stage::count: {
        count_ = get_i32be(buffered.data() + pos_);
        // Each message takes at least 5 bytes (size + one byte), after the count.
        const int64_t max_count = (limits_.max_body_size - 4) / 5;
        if (count_ <= 0 || count_ > max_count) {
          error_ = bad_body("MPUB invalid message count " + std::to_string(count_));
          return Status::failed;
        }
        pos_ += 4;
        stage_ = Stage::size;
        need_ = pos_ + 4;
        // Not more than a few pages up front: the count is the client's word.
        spans_.reserve(static_cast<std::size_t>(std::min<int64_t>(count_, 4096)));
        break;
      }
      case Stage::size: {
        const int32_t size = get_i32be(buffered.data() + pos_);
        if (size <= 0) {
          error_ = bad_message("MPUB invalid message(" + std::to_string(spans_.size()) +
                               ") body size " + std::to_string(size));
          return Status::failed;
        }
        if (size > limits_.max_msg_size) {
          error_ = bad_message("MPUB message too big " + std::to_string(size) + " > " +
                               std::to_string(limits_.max_msg_size));
          return Status::failed;
        }
        pos_ += 4;
        body_size_ = static_cast<std::size_t>(size);
        stage_ = Stage::body;
        need_ = pos_ + body_size_;
        break;
      }
      case Stage::body:
        spans_.emplace_back(pos_, body_size_);
        pos_ += body_size_;
        if (static_cast<int64_t>(spans_.size()) == count_) {
          stage_ = Stage::done;
          need_ = pos_;
        } else {
          stage_ = Stage::size;
          need_ = pos_ + 4;
        }
        break;
      case Stage::done:
        break;
    }
  }
  return Status::done;
}

std::vector<std::string_view> MpubReader::messages(std::string_view buffered) const {
  std::vector<std::string_view> out;
  out.reserve(spans_.size());
  for (auto [at, size] : spans_) out.push_back(buffered.substr(at, size));
  return out;
}

ProtocolError MpubReader::truncated() const {
  switch (stage_) {
    case Stage::count:
      return bad_body("MPUB failed to read message count");
    case Stage::size:
      return bad_message("MPUB failed to read message(" + std::to_string(spans_.size()) +
                         ") body size");
    default:
      return bad_message("MPUB failed to read message body");
  }
}

ProtocolResult<std::vector<std::string_view>> parse_mpub_body(std::string_view body,
                                                              const MpubLimits& limits) {
  MpubReader reader(limits);
  switch (reader.put(body)) {
    case MpubReader::Status::done:
      return reader.messages(body);
    case MpubReader::Status::failed:
      return tl::unexpected(reader.error());
    case MpubReader::Status::need_more:
      break;
  }
  return tl::unexpected(reader.truncated());
}

void append_mpub_body(std::string& out, const std::vector<std::string_view>& messages) {
  append_u32be(out, static_cast<uint32_t>(messages.size()));
  for (std::string_view m : messages) {
    append_u32be(out, static_cast<uint32_t>(m.size()));
    out.append(m);
  }
}

}  // namespace nsq
