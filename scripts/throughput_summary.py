#!/usr/bin/env python3
"""summary.json of issue 10's GPU evidence, from the files scripts/gpu_throughput.sh wrote into DIR:
compile_bench_attention.json / compile_bench_smoke.json (compile-bench --json-out), search_summary.json
(evotune search --summary-json) and search_wall.txt (the whole command's wall time).

    scripts/throughput_summary.py DIR > DIR/summary.json
"""
import json
import pathlib
import sys


def rate(rows, mode, workers):
    for r in rows:
        if r["mode"] == mode and r["workers"] == workers:
            return r["cold_per_second"]
    return None


def main():
    d = pathlib.Path(sys.argv[1])
    attention = json.loads((d / "compile_bench_attention.json").read_text())
    smoke = json.loads((d / "compile_bench_smoke.json").read_text())
    search = json.loads((d / "search_summary.json").read_text())
    wall = float((d / "search_wall.txt").read_text().split()[1])
    confirm = {}
    confirm_file = d / "confirm.jsonl"
    if confirm_file.exists():
        import statistics
        rows = [json.loads(line) for line in confirm_file.read_text().splitlines() if line.strip()]
        for name in dict.fromkeys(r["name"] for r in rows):
            medians = [r["kernel"]["median_us"] for r in rows if r["name"] == name]
            confirm[name] = {"median_of_rounds_us": statistics.median(medians), "rounds_us": medians,
                             "config": next(r["config"] for r in rows if r["name"] == name)}
    out = {
        "problem": "b=4,hq=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16",
        "trials": search["trials"],
        # The whole `evotune search` command: start-up, compiles, checks, timing and the baselines after.
        "wall_s": wall,
        "search_wall_s": search["search_wall_s"],
        "gpu_busy_s": search["gpu_busy_s"],
        "gpu_wait_s": search["gpu_wait_s"],
        "gpu_busy_fraction": search["gpu_busy_fraction"],
        "gpu_wait_fraction": search["gpu_wait_fraction"],
        "best_us": search["best_us"],
        "best_config": search["best_config"],
        # Compile throughput of the search's own kernels (32 attention configs of the problem, cold).
        "compiles_per_s_processes_16": rate(attention, "processes", 16),
        "compiles_per_s_threads_16": rate(attention, "threads", 16),
        "attention_compiles_per_s": {f"{r['mode']}_{r['workers']}": r["cold_per_second"] for r in attention},
        "smoke_compiles_per_s": {f"{r['mode']}_{r['workers']}": r["cold_per_second"] for r in smoke},
        # The winner beside earlier winners, re-timed interleaved in the same call (GPU state drifts ~2%).
        "interleaved_retiming": confirm,
        "search": search,
    }
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
