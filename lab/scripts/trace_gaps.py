#!/usr/bin/env python3
"""Where a graphed decode step's time goes, from torch.profiler chrome traces of its replays
(llama_e2e.py --profile writes OUT/trace_graphed_<implementation>.json, 20 replays each): per replay, the
span from the first kernel's start to the last kernel's end, the time some kernel was running (the union of
their intervals), and the idle rest; and around each attention call (the kernels whose names match
--attention), the idle time before its first kernel and after its last, and its own span. Medians over the
replays, one line per trace.

    python3 lab/scripts/trace_gaps.py DIR/trace_graphed_*.json
"""

import argparse
import json
import re
import statistics
import sys
from pathlib import Path


def kernels(path):
    events = json.loads(Path(path).read_text())
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    out = [(e["ts"], e["ts"] + e.get("dur", 0), e["name"]) for e in events
           if e.get("ph") == "X" and e.get("cat") == "kernel"]
    return sorted(out)


def replays(ks, count, gap_us):
    """Splits the kernels into `count` replays of equal kernel counts (replays run back to back, so idle time
    cannot separate them), or where that does not divide, at idle gaps longer than gap_us."""
    if count and len(ks) % count == 0:
        n = len(ks) // count
        return [ks[i:i + n] for i in range(0, len(ks), n)]
    groups, current = [], []
    for k in ks:
        if current and k[0] - max(e for _, e, _ in current) > gap_us:
            groups.append(current)
            current = []
        current.append(k)
    if current:
        groups.append(current)
    return groups


def busy(intervals):
    total, end = 0.0, None
    for s, e, _ in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("traces", nargs="+")
    p.add_argument("--attention", help="regex of the attention calls' kernel names",
                   default="attention_fwd|attention_combine|sdpa|flash_fwd|lean_reduction")
    p.add_argument("--replays", type=int, default=20, help="replays in each trace (default 20)")
    p.add_argument("--replay-gap-us", type=float, default=20.0,
                   help="where the kernels do not divide into --replays: an idle gap longer than this "
                        "starts a new replay (default 20)")
    args = p.parse_args()
    pattern = re.compile(args.attention)
    for path in args.traces:
        groups = [g for g in replays(kernels(path), args.replays, args.replay_gap_us) if len(g) > 10]
        if not groups:
            print(f"{path}: no replays found", file=sys.stderr)
            continue
        spans, busies, before, after, own = [], [], [], [], []
        for g in groups:
            start, end = g[0][0], max(e for _, e, _ in g)
            spans.append(end - start)
            busies.append(busy(g))
            i = 0
            while i < len(g):
                if pattern.search(g[i][2]):
                    j = i
                    while j + 1 < len(g) and pattern.search(g[j + 1][2]):
                        j += 1
                    prev_end = max((e for _, e, _ in g[:i]), default=g[i][0])
                    call_end = max(e for _, e, _ in g[i:j + 1])
                    before.append(max(0.0, g[i][0] - prev_end))
                    if j + 1 < len(g):
                        after.append(max(0.0, g[j + 1][0] - call_end))
                    own.append(call_end - g[i][0])
                    i = j + 1
                else:
                    i += 1
        calls = len(own) / len(groups)
        m = statistics.median
        print(f"{Path(path).name}: {len(groups)} replays, {m([len(g) for g in groups])} kernels each; "
              f"span {m(spans):.1f} us, busy {m(busies):.1f}, idle {m(spans) - m(busies):.1f}; {calls:.0f} "
              f"attention calls a replay: own span {m(own):.2f} us, idle before {m(before):.2f}, after "
              f"{m(after):.2f} (medians over calls)")


if __name__ == "__main__":
    main()
