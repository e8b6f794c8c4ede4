#!/usr/bin/env python3
"""How late nsqd's deadlines fire: on a fresh topic and channel per round, a
DPUB delay, then a REQ delay, then a msg_timeout (nsqd must run with
--msg-timeout equal to the delay). Lateness = arrival - (command sent +
delay), so it includes one loopback hop and this script's own scheduling.

Usage: deadline_spread.py <tcp host:port> [rounds=40] [delay_ms=100]
Prints: RESULT deadlines kind=dpub|req|timeout n=.. p50_ms=.. p90_ms=.. p99_ms=.. max_ms=..
        over_50ms=.. early=..
A timeout is timed from the first delivery's arrival here, so a late
arrival of that delivery (this script descheduled) shows as an early or
shortened timeout: only DPUB and REQ lateness is exact to one hop.
"""
import socket
import struct
import sys
import time


class Conn:
    def __init__(self, addr):
        self.sock = socket.create_connection(addr)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.sock.sendall(b"  V2")

    def frame(self):
        while True:
            if len(self.buf) >= 4:
                size, = struct.unpack(">i", self.buf[:4])
                if len(self.buf) >= 4 + size:
                    body = self.buf[4:4 + size]
                    self.buf = self.buf[4 + size:]
                    ftype, = struct.unpack(">i", body[:4])
                    if ftype == 0 and body[4:] == b"_heartbeat_":
                        self.sock.sendall(b"NOP\n")
                        continue
                    return ftype, body[4:]
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("nsqd closed the connection")
            self.buf += chunk

    def expect_ok(self):
        ftype, data = self.frame()
        if ftype != 0 or data != b"OK":
            raise RuntimeError(f"expected OK, got {ftype} {data!r}")

    def message(self):
        ftype, data = self.frame()
        if ftype != 2:
            raise RuntimeError(f"expected a message, got {ftype} {data!r}")
        return data[10:26], struct.unpack(">H", data[8:10])[0]


def summary(kind, values, delay_ms):
    values = sorted(values)
    n = len(values)
    # A timeout is timed from the first delivery's arrival, up to one
    # loopback hop after nsqd started the clock: allow that much.
    early = sum(1 for v in values if v < (-1.0 if kind == "timeout" else 0))
    over50 = sum(1 for v in values if v > 50)
    pick = lambda q: values[min(n - 1, int(q * n))]
    print(f"RESULT deadlines kind={kind} delay_ms={delay_ms} n={n} p50_ms={pick(0.5):.2f} "
          f"p90_ms={pick(0.9):.2f} p99_ms={pick(0.99):.2f} max_ms={values[-1]:.2f} "
          f"over_50ms={over50} early={early}")


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    addr = (host, int(port))
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    delay_ms = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    delay = delay_ms / 1000
    late = {"dpub": [], "req": [], "timeout": []}
    pub = Conn(addr)
    for r in range(rounds):
        topic = f"deadline{r}".encode()
        sub = Conn(addr)
        sub.sock.sendall(b"SUB " + topic + b" c\n")
        sub.expect_ok()
        sub.sock.sendall(b"RDY 1\n")
        t0 = time.monotonic()
        pub.sock.sendall(b"DPUB " + topic + b" %d\n" % delay_ms + struct.pack(">i", 3) + b"abc")
        pub.expect_ok()
        msg_id, _ = sub.message()
        late["dpub"].append((time.monotonic() - t0 - delay) * 1000)
        t0 = time.monotonic()
        sub.sock.sendall(b"REQ " + msg_id + b" %d\n" % delay_ms)
        msg_id, attempts = sub.message()
        t1 = time.monotonic()
        late["req"].append((t1 - t0 - delay) * 1000)
        # Not FIN'd: back after msg_timeout, counted from its delivery.
        msg_id, attempts = sub.message()
        late["timeout"].append((time.monotonic() - t1 - delay) * 1000)
        sub.sock.sendall(b"FIN " + msg_id + b"\n")
        sub.sock.close()
    for kind, values in late.items():
        summary(kind, values, delay_ms)


if __name__ == "__main__":
    main()
