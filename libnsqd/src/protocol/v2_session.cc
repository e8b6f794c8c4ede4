#include "protocol/v2_session.h"

#include "nsq/endian.h"
#include "protocol/errors.h"

namespace nsq::nsqd::protocol {

namespace {

constexpr std::string_view kMagicV2 = "  V2";
constexpr std::size_t kSizeField = 4;

Step need(std::size_t bytes) {
  Step s;
  s.kind = Step::Kind::need_more;
  s.need = bytes;
  return s;
}

Step close_step() {
  Step s;
  s.kind = Step::Kind::close;
  return s;
}

}  // namespace

Step V2Session::fail(ProtocolError error) {
  Step s;
  s.kind = Step::Kind::error;
  s.error = std::move(error);
  stage_ = Stage::done;  // every error here is fatal
  return s;
}

Step V2Session::next(std::string_view input, bool ended) {
  switch (stage_) {
    case Stage::magic:
      return on_magic(input, ended);
    case Stage::line:
      return on_line(input, ended);
    case Stage::body:
      return on_body(input, ended);
    case Stage::done:
      break;
  }
  return close_step();
}

void V2Session::expect_body(BodyKind kind) {
  body_ = kind;
  stage_ = Stage::body;
  mpub_.reset();
}

// The magic is taken with the first command line (in its step's consumed
// bytes), so that a caller sees only commands, bodies and their ends.
Step V2Session::on_magic(std::string_view input, bool ended) {
  if (input.size() < kMagicV2.size()) return ended ? close_step() : need(kMagicV2.size());
  if (input.substr(0, kMagicV2.size()) != kMagicV2) {
    bad_magic_.assign(input.substr(0, kMagicV2.size()));
    return fail(error(ErrorCode::bad_protocol, ""));
  }
  Step s = on_line(input.substr(kMagicV2.size()), ended);
  if (s.kind == Step::Kind::need_more) s.need += kMagicV2.size();
  if (s.kind == Step::Kind::command) s.consumed += kMagicV2.size();
  return s;
}

Step V2Session::on_line(std::string_view input, bool ended) {
  const LineScan scan = scan_line(input);
  if (scan.status == LineStatus::too_long) return close_step();
  if (scan.status == LineStatus::need_more) return ended ? close_step() : need(input.size() + 1);
  // A copy: the input moves while the command reads its body.
  line_.assign(scan.line);
  split_command(line_, command_);
  stage_ = Stage::line;
  Step s;
  s.kind = Step::Kind::command;
  s.consumed = scan.consumed;
  s.command = &command_;
  return s;
}

std::optional<ProtocolError> V2Session::check_size(std::int32_t size) const {
  const std::string cmd(command_.name);
  const std::string n = std::to_string(size);
  switch (body_) {
    case BodyKind::identify:
    case BodyKind::auth:
      if (size > limits_.max_body_size) {
        return error(ErrorCode::bad_body,
                     cmd + " body too big " + n + " > " + std::to_string(limits_.max_body_size));
      }
      if (size <= 0) return error(ErrorCode::bad_body, cmd + " invalid body size " + n);
      return std::nullopt;
    case BodyKind::message:
      if (size <= 0) {
        return error(ErrorCode::bad_message, cmd + " invalid message body size " + n);
      }
      if (size > limits_.max_msg_size) {
        return error(ErrorCode::bad_message,
                     cmd + " message too big " + n + " > " + std::to_string(limits_.max_msg_size));
      }
      return std::nullopt;
    case BodyKind::mpub:
      if (size <= 0) return error(ErrorCode::bad_body, cmd + " invalid body size " + n);
      if (size > limits_.max_body_size) {
        return error(ErrorCode::bad_body,
                     cmd + " body too big " + n + " > " + std::to_string(limits_.max_body_size));
      }
      return std::nullopt;
  }
  return std::nullopt;
}

Step V2Session::on_body(std::string_view input, bool ended) {
  const std::string cmd(command_.name);
  const bool message = body_ == BodyKind::message;
  if (input.size() < kSizeField) {
    if (!ended) return need(kSizeField);
    return fail(message ? error(ErrorCode::bad_message, cmd + " failed to read message body size")
                        : error(ErrorCode::bad_body, cmd + " failed to read body size"));
  }
  const std::int32_t size = get_i32be(input.data());
  if (auto bad = check_size(size)) return fail(std::move(*bad));
  if (body_ == BodyKind::mpub) return on_mpub(input, size, ended);
  const std::size_t total = kSizeField + static_cast<std::size_t>(size);
  if (input.size() < total) {
    if (!ended) return need(total);
    return fail(message ? error(ErrorCode::bad_message, cmd + " failed to read message body")
                        : error(ErrorCode::bad_body, cmd + " failed to read body"));
  }
  stage_ = Stage::line;
  Step s;
  s.kind = Step::Kind::body;
  s.command = &command_;
  s.consumed = total;
  s.body = input.substr(kSizeField, static_cast<std::size_t>(size));
  return s;
}

// The declared size is checked and then ignored, as nsqd ignores it: the
// count and the messages are read from the stream (see MpubReader).
Step V2Session::on_mpub(std::string_view input, std::int32_t, bool ended) {
  if (!mpub_) mpub_.emplace(MpubLimits{limits_.max_msg_size, limits_.max_body_size});
  const std::string_view stream = input.substr(kSizeField);
  switch (mpub_->put(stream)) {
    case MpubReader::Status::failed:
      return fail(mpub_->error());
    case MpubReader::Status::need_more:
      if (!ended) return need(kSizeField + mpub_->need());
      return fail(mpub_->truncated());
    case MpubReader::Status::done:
      break;
  }
  stage_ = Stage::line;
  Step s;
  s.kind = Step::Kind::body;
  s.command = &command_;
  s.consumed = kSizeField + mpub_->consumed();
  s.messages = mpub_->messages(stream);
  mpub_.reset();
  return s;
}

}  // namespace nsq::nsqd::protocol
