#pragma once

#include <utility>  // before Asio's headers (Boost 1.74)

#include <boost/asio/any_io_executor.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "nsq/message.h"
#include "nsq/protocol_error.h"
#include "protocol/client_state.h"
#include "protocol/v2_session.h"

namespace boost::asio::ssl {
class context;
}

namespace nsq::nsqd {
class Broker;
class Subscriber;
class WorkerPool;
}  // namespace nsq::nsqd

namespace nsq::nsqd::protocol {

// What the command handlers (protocol/handlers/) ask of the connection they
// run on: ClientConn implements it over a socket. Called on the
// connection's thread only.
class V2Client {
 public:
  virtual ~V2Client() = default;

  virtual Broker& broker() = 0;
  virtual ClientState& state() = 0;
  // The thread the connection runs on: where a handler waiting for another
  // thread (disk, auth server) resumes.
  virtual boost::asio::any_io_executor executor() = 0;
  // This client as a channel's subscriber.
  virtual std::weak_ptr<Subscriber> subscriber() = 0;

  // Queues a response frame.
  virtual void respond(std::string_view data) = 0;
  // Sends what is queued now if the socket takes it, rather than when the
  // running command ends.
  virtual void flush() = 0;
  // Queues an error frame; a fatal one ends the connection after it.
  // Returns whether the connection stays open (for `return fail(...)`).
  virtual bool fail(const ProtocolError& error) = 0;
  // The command's body is read next (PUB, MPUB, DPUB, IDENTIFY, AUTH).
  virtual void expect_body(BodyKind kind) = 0;
  // RDY, FIN or REQ made room: deliver once the commands read so far ran.
  virtual void want_delivery() = 0;
  // A FIN of a well-formed id, in a subscribed state: the client finishes it
  // (handlers::finish_pending) with the FINs that follow it directly, before
  // it runs any other command or waits for more bytes.
  virtual void finish_later(const MessageId& id) = 0;
  // IDENTIFY changed the heartbeat interval: re-plan heartbeats and the
  // read deadline.
  virtual void heartbeat_changed() = 0;
  // IDENTIFY negotiated TLS, snappy or deflate: the connection sends
  // `response` and switches layers before it reads another command.
  virtual void upgrade(std::string response) = 0;
  // A publish waited for a disk thread (see ClientConn::fill).
  virtual void resumed_from_disk() = 0;

  // TLS: the server's context (null without a certificate), whether this
  // connection speaks it, and the client certificate's common name.
  virtual const std::shared_ptr<boost::asio::ssl::context>& tls_context() const = 0;
  virtual bool tls() const = 0;
  virtual std::string tls_common_name() const = 0;
  // Threads for the auth server's blocking queries (null when AUTH is off).
  virtual WorkerPool* auth_pool() const = 0;
};

}  // namespace nsq::nsqd::protocol
