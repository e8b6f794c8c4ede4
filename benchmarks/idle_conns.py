#!/usr/bin/env python3
"""Memory per idle nsqd connection: opens N consumer connections (magic,
IDENTIFY, SUB, RDY 1 on a topic with nothing to deliver), waits, and reports
the growth of nsqd's resident set (VmRSS) divided by N.

Usage: idle_conns.py <pid> <tcp host:port> [count=2000] [settle=2]
Prints: RESULT idle_conns=N rss_before_kib=.. rss_after_kib=.. bytes_per_conn=..
"""
import json
import resource
import socket
import struct
import sys
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def read_frame(sock):
    def exact(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("nsqd closed the connection")
            data += chunk
        return data
    size, = struct.unpack(">i", exact(4))
    body = exact(size)
    return struct.unpack(">i", body[:4])[0], body[4:]


def request(sock, data):
    sock.sendall(data)
    ftype, body = read_frame(sock)
    if ftype != 0:
        raise RuntimeError(f"nsqd replied {body!r}")
    return body


def main():
    pid = int(sys.argv[1])
    host, port = sys.argv[2].rsplit(":", 1)
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    settle = float(sys.argv[4]) if len(sys.argv) > 4 else 2
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, count + 100)), hard))
    identify = json.dumps({"client_id": "idle", "feature_negotiation": True}).encode()
    # One warm-up connection creates the topic and channel.
    warm = socket.create_connection((host, int(port)))
    warm.sendall(b"  V2")
    request(warm, b"SUB idle_conns c\n")
    time.sleep(settle)
    before = rss_kib(pid)
    socks = []
    for _ in range(count):
        s = socket.create_connection((host, int(port)))
        s.sendall(b"  V2")
        request(s, b"IDENTIFY\n" + struct.pack(">i", len(identify)) + identify)
        request(s, b"SUB idle_conns c\n")
        s.sendall(b"RDY 1\n")
        socks.append(s)
    time.sleep(settle)
    after = rss_kib(pid)
    per = (after - before) * 1024 / count
    print(f"RESULT idle_conns={count} rss_before_kib={before} rss_after_kib={after} "
          f"bytes_per_conn={per:.0f}")
    for s in socks:
        s.close()
    warm.close()


if __name__ == "__main__":
    main()
