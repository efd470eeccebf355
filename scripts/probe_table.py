#!/usr/bin/env python3
"""The configs of a gpu_hopper.sh `probe` step side by side, per problem, beside SDPA cuDNN's median:
   scripts/probe_table.py FOLDER...   (each FOLDER holds probe.jsonl and, from the `sdpa` step, sdpa.csv)
Each config (named by its tiles, CTAs per SM and scheduler; the problem-aware default's records count under
the config it resolved to) gets its rounds' medians and their median, and cuDNN's median over it; a config
timed as a CUDA graph where cuDNN was timed with single launches, or the other way round, is marked, since
that ratio compares two ways of timing (harness/timer.h)."""
import collections
import json
import statistics
import sys
from pathlib import Path

from bench_records import read_sdpa, read_sdpa_batches, timed_alike


def short_name(config: str) -> str:
    t = dict(item.split("=", 1) for item in config.split(","))
    flags = "".join(f" {name}" for name in ("overlap", "pingpong") if t[name] == "on")
    return f"{t['block_m']}x{t['block_n']} ctas{t['min_ctas']} {t['scheduler']}{flags} o={t['o_store']}"


def main(folders: list[str]) -> None:
    for folder in map(Path, folders):
        cudnn = {problem: us for (problem, backend), us in read_sdpa(folder).items() if backend == "cudnn"}
        cudnn_batch = {problem: n for (problem, backend), n in read_sdpa_batches(folder).items() if backend == "cudnn"}
        runs: dict[str, dict[str, list[float]]] = collections.defaultdict(lambda: collections.defaultdict(list))
        batches: dict[tuple[str, str], set[int]] = collections.defaultdict(set)
        for line in (folder / "probe.jsonl").read_text().splitlines():
            r = json.loads(line)
            runs[r["problem"]][short_name(r["config"])].append(r["kernel"]["median_us"])
            batches[(r["problem"], short_name(r["config"]))].add(int(r["kernel"].get("batch", 1)))
        for problem, configs in runs.items():
            base = cudnn.get(problem)
            print(f"{problem}  cuDNN {base if base else '-'} us")
            for name, times in configs.items():
                m = statistics.median(times)
                ratio = f"{base / m:.3f}x cuDNN" if base else ""
                ours = batches[(problem, name)]
                if base and not timed_alike(sorted(ours), cudnn_batch.get(problem)):
                    ratio += (f" (timed differently: {'/'.join(map(str, sorted(ours)))} launches per sample, "
                              f"cuDNN {cudnn_batch.get(problem)})")
                print(f"  {name:28s} {' '.join(f'{x:.2f}' for x in times)} -> {m:.2f} us  {ratio}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
