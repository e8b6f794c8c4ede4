#!/usr/bin/env python3
"""Runs bm_diskqueue several times (rounds) and prints, per benchmark, the
median items/s over the rounds, plus the median of the per-round ratios of
multi-threaded to single-threaded runs. On a shared, noisy machine a ratio
taken within one round (one disk state) is steadier than one taken across
rounds; the machine's fsync rate is measured in every round beside them.

usage: bm_diskqueue_rounds.py BINARY [--rounds N] [--filter REGEX] [--min-time S]
"""
import argparse
import json
import re
import statistics
import subprocess
import sys


def run_round(binary, flt, min_time):
    out = subprocess.run(
        [binary, f"--benchmark_filter={flt}", f"--benchmark_min_time={min_time}",
         "--benchmark_format=json"],
        check=True, capture_output=True, text=True).stdout
    rates = {}
    for b in json.loads(out)["benchmarks"]:
        rate = b.get("items_per_second")
        if rate is not None:
            rates[b["name"]] = (rate, b.get("fsyncs_per_s"))
    return rates


def base_of(name):
    """The single-threaded benchmark a multi-threaded one compares to."""
    return re.sub(r"/threads:\d+$", "/threads:1", name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--filter", default="MachineFsync|BM_PutDurable/size:100/|"
                    "BM_Put/size:(100|1024)/sync_every:1/")
    ap.add_argument("--min-time", default="1")
    args = ap.parse_args()
    rounds = []
    for i in range(args.rounds):
        rounds.append(run_round(args.binary, args.filter, args.min_time))
        print(f"round {i + 1}: " + ", ".join(f"{k}={v[0]:,.0f}" for k, v in rounds[-1].items()),
              file=sys.stderr)
    print("| benchmark | items/s (median) | rounds | vs 1 thread (median of per-round ratios) "
          "| records per fsync (median) |")
    print("|---|---|---|---|---|")
    for name in rounds[0]:
        values = [r[name][0] for r in rounds if name in r]
        base = base_of(name)
        ratio = ""
        if base != name and all(base in r for r in rounds):
            ratio = f"{statistics.median(r[name][0] / r[base][0] for r in rounds if name in r):.1f}x"
        per_fsync = [r[name][0] / r[name][1] for r in rounds if name in r and r[name][1]]
        group = f"{statistics.median(per_fsync):.1f}" if per_fsync else ""
        spread = " / ".join(f"{v:,.0f}" for v in values)
        print(f"| {name} | {statistics.median(values):,.0f} | {spread} | {ratio} | {group} |")


if __name__ == "__main__":
    main()
