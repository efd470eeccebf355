#!/usr/bin/env python3
"""Summarizes Nsight Compute's per-instruction SASS pages (`ncu --import R --page source --csv --print-source
sass`, what scripts/gpu_hopper.sh's ncu step writes as ncu_*.sass.csv[.gz]) side by side: warp instructions
and stall samples per opcode, stall reasons in all, stall samples by how often an instruction ran (a kernel's
per-tile code and per-block code run a different number of times), and the instructions with the most
samples of one stall reason.

  ncu_sass_summary.py A.sass.csv[.gz] [B.sass.csv[.gz] ...] [--reason wait] [--top 12]

The figures of evidence/results/h100/hopper/NOTES.md v8 (instructions per opcode, 'wait' stalls on MUFU.EX2)
come from it, e.g. on probe/call17 (archived in lab/h100/hopper/probe.tar.xz: unpack it first):
  tar -xJf lab/h100/hopper/probe.tar.xz -C /tmp probe/call17
  lab/scripts/ncu_sass_summary.py /tmp/probe/call17/ncu_p1_cudnn.sass.csv.gz /tmp/probe/call17/ncu_p1_evotune1.sass.csv.gz
"""
import argparse
import collections
import csv
import gzip
import io
import re
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def read_page(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(io.StringIO(f.read())))
    # Row 0 names the kernel; row 1 is the header.
    if len(rows) < 3 or SAMPLES not in rows[1]:
        raise ValueError(f"{path}: not an ncu SASS source page (no '{SAMPLES}' column)")
    header = rows[1]
    return header, rows[2:]


def number(text):
    try:
        return int(text.replace(",", "")) if text else 0
    except ValueError:
        return 0


def opcode(source):
    text = re.sub(r"^@!?U?P\w+\s+", "", source.strip())  # drop the predicate
    return text.split()[0].split(".")[0] if text else "?"


def summarize(path, reason, top):
    header, rows = read_page(path)
    column = {name: i for i, name in enumerate(header)}
    stalls = [name for name in header if name.startswith("stall_") and "(Not Issued)" not in name]
    executed = collections.Counter()
    sampled = collections.Counter()
    by_count = collections.Counter()
    reasons = collections.Counter()
    for row in rows:
        op = opcode(row[column["Source"]])
        executed[op] += number(row[column[EXECUTED]])
        samples = number(row[column[SAMPLES]])
        sampled[op] += samples
        by_count[number(row[column[EXECUTED]])] += samples
        for name in stalls:
            reasons[name[len("stall_"):]] += number(row[column[name]])
    worst = []
    if f"stall_{reason}" in column:
        index = column[f"stall_{reason}"]
        worst = sorted(rows, key=lambda r: -number(r[index]))[:top]
        worst = [(number(r[index]), number(r[column[EXECUTED]]), r[column["Source"]].strip()) for r in worst]
    return {"path": path, "executed": executed, "sampled": sampled, "by_count": by_count, "reasons": reasons,
            "worst": worst}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pages", nargs="+")
    parser.add_argument("--reason", default="wait", help="stall reason whose top instructions to list")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    try:
        pages = [summarize(p, args.reason, args.top) for p in args.pages]
    except (OSError, ValueError) as e:
        print(f"ncu_sass_summary: {e}", file=sys.stderr)
        return 2
    names = [p["path"].split("/")[-1].split(".")[0] for p in pages]
    width = max(14, *(len(n) for n in names))
    print("warp instructions (M) and stall samples per opcode")
    print("opcode".ljust(12) + "".join(n.rjust(width + 8) for n in names))
    opcodes = set()
    for p in pages:
        opcodes |= {op for op, n in p["executed"].items() if n > 0.005 * sum(p["executed"].values())}
    for op in sorted(opcodes, key=lambda o: -max(p["executed"][o] for p in pages)):
        print(op.ljust(12) + "".join(f"{p['executed'][op] / 1e6:9.2f}M {p['sampled'][op]:6d}".rjust(width + 8)
                                     for p in pages))
    print("total".ljust(12) + "".join(f"{sum(p['executed'].values()) / 1e6:9.2f}M {sum(p['sampled'].values()):6d}"
                                      .rjust(width + 8) for p in pages))
    for name, p in zip(names, pages):
        total = sum(p["sampled"].values()) or 1
        print(f"\n{name}: stall reasons: " +
              " ".join(f"{r}:{n}" for r, n in p["reasons"].most_common(10)))
        print(f"{name}: samples by execution count (per-tile code runs fewer times than per-block code): " +
              " ".join(f"{count}x:{100 * n / total:.1f}%" for count, n in p["by_count"].most_common(8)))
        if p["worst"]:
            print(f"{name}: top '{args.reason}' stalls")
            for n, count, source in p["worst"]:
                print(f"  {n:6d}  executed {count:8d}  {source[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
