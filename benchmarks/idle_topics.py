#!/usr/bin/env python3
"""Creates N topics with one channel each on an nsqd over HTTP (keep-alive:
/topic/create then /channel/create), waits, then samples the nsqd
process's CPU time (utime+stime from /proc/<pid>/stat) over a window.

Usage: idle_topics.py <pid> <http host:port> [count=10000] [settle=5] [window=30]
Prints: RESULT idle_topics=N create_s=.. settle_s=.. window_s=.. cpu_s=.. cpu_pct_of_core=..
(create_s: the time the 2 x N creation requests took, one after another).
"""
import http.client
import os
import sys
import time


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        # Fields after the command name (which may contain spaces).
        rest = f.read().rsplit(")", 1)[1].split()
    utime, stime = int(rest[11]), int(rest[12])
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def main():
    pid = int(sys.argv[1])
    host, port = sys.argv[2].rsplit(":", 1)
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    settle = float(sys.argv[4]) if len(sys.argv) > 4 else 5
    window = float(sys.argv[5]) if len(sys.argv) > 5 else 30
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    t0 = time.monotonic()
    for i in range(count):
        for path in (f"/topic/create?topic=idle{i}", f"/channel/create?topic=idle{i}&channel=c"):
            conn.request("POST", path)
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                sys.exit(f"{path}: HTTP {resp.status}")
    created = time.monotonic() - t0
    conn.request("GET", "/stats?format=json&include_clients=false")
    resp = conn.getresponse()
    body = resp.read()
    topics = body.count(b'"topic_name"')
    channels = body.count(b'"channel_name"')
    conn.close()
    if topics < count or channels < count:
        sys.exit(f"/stats lists {topics} topics and {channels} channels, expected {count}")
    time.sleep(settle)
    c0, w0 = cpu_seconds(pid), time.monotonic()
    time.sleep(window)
    c1, w1 = cpu_seconds(pid), time.monotonic()
    pct = 100.0 * (c1 - c0) / (w1 - w0)
    print(f"RESULT idle_topics={count} create_s={created:.1f} settle_s={settle:g} "
          f"window_s={w1 - w0:.1f} cpu_s={c1 - c0:.2f} cpu_pct_of_core={pct:.2f}")


if __name__ == "__main__":
    main()
