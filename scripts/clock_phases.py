#!/usr/bin/env python3
"""The GPU's SM clock and power during the phases of one search: what scripts/gpu_throughput.sh's `clocks`
step sampled (nvidia-smi every 100 ms, clocks.csv) against when the search recorded its trials and its
interleaved re-timing (search.db).

    scripts/clock_phases.py DIR
"""
import csv
import datetime
import pathlib
import sqlite3
import statistics
import sys


def when(text):
    text = text.strip()
    for fmt in ("%Y/%m/%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S.%fZ"):
        try:
            return datetime.datetime.strptime(text, fmt).replace(tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            pass
    raise ValueError(text)


def main():
    d = pathlib.Path(sys.argv[1])
    rows = []
    with open(d / "clocks.csv") as f:
        for r in csv.reader(f):
            if not r or r[0].startswith("timestamp"):
                continue
            try:
                rows.append((when(r[0]), float(r[1]), float(r[3]), float(r[4]), float(r[5])))
            except (ValueError, IndexError):
                continue
    db = sqlite3.connect(d / "search.db")
    trials = [when(t) for (t,) in db.execute("select created_at from trials order by created_at")]
    retimes = [when(t) for (t,) in db.execute("select created_at from retimes order by id")]
    # Both clocks are UTC: the script runs nvidia-smi with TZ=UTC, and SQLite's strftime('now') is UTC.
    offset = 0.0
    phases = [("search (first trial to last)", trials[0] - 1.0, trials[-1]),
              ("confirmation (after the last trial, until its record)", trials[-1], retimes[-1] if retimes else trials[-1])]
    print(f"{len(rows)} nvidia-smi samples")
    for name, a, b in phases:
        inside = [r for r in rows if a <= r[0] + offset <= b]
        if not inside:
            print(f"{name}: no samples")
            continue
        clocks = [r[1] for r in inside]
        print(f"{name}: {len(inside)} samples, SM clock median {statistics.median(clocks):.0f} MHz "
              f"(min {min(clocks):.0f}, max {max(clocks):.0f}), power median {statistics.median(r[2] for r in inside):.0f} W, "
              f"temperature max {max(r[3] for r in inside):.0f} C, utilization median {statistics.median(r[4] for r in inside):.0f}%")


if __name__ == "__main__":
    main()
