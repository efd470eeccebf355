#!/usr/bin/env python3
"""summary.json of issue 11's GPU evidence, from what scripts/gpu_decode.sh wrote into DIR:

  bench.jsonl   evotune bench --json records, tagged which=default|best and round (interleaved rounds)
  sdpa.csv      scripts/compare_sdpa.py's CSV (flash and cudnn backends)
  search/*/summary.json   evotune search --summary-json per problem

    python3 scripts/decode_summary.py DIR N_LISTED > DIR/summary.json   # the table and verdicts on stderr

summary.json: the list of rows the issue asks for, [{problem, default_us, best_us, best_config,
sdpa_flash_us, sdpa_cudnn_us, ...}], each with more beside them (default_config, kv_tbps_best,
best_over_faster_sdpa, default_over_best, the rounds, verdicts, listed). DIR/summary_searches.json gets
each search's --summary-json. Times are the
median over rounds of each bench's median (each bench: 50 L2-flushed samples). `listed`: one of the
issue's rows (the first N_LISTED problems), not a shape beyond them. Targets (the issue's): best <= the
faster SDPA backend on every row, >= 3.0 TB/s of K/V read on the two large decode rows, default <=
1.5 x best.
"""
import json
import sys
from pathlib import Path

from bench_records import median_of, read_bench, read_sdpa


def kv_bytes(problem: str) -> float:
    f = dict(item.split("=") for item in problem.split(","))
    return 2.0 * int(f["b"]) * int(f["hkv"]) * int(f["skv"]) * int(f["d"]) * 2  # K and V, 2-byte elements


def main() -> int:
    out = Path(sys.argv[1])
    listed = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    bench, order = read_bench(out)
    sdpa = read_sdpa(out)

    rows = []
    ok_all = True
    print(f"{'problem':<58} {'default':>9} {'best':>9} {'flash':>9} {'cudnn':>9} {'KV TB/s':>8}  verdict", file=sys.stderr)
    for i, problem in enumerate(order):
        default_us, default_config, default_rounds = median_of(bench, problem, "default")
        best_us, best_config, best_rounds = median_of(bench, problem, "best")
        flash, cudnn = sdpa.get((problem, "flash")), sdpa.get((problem, "cudnn"))
        faster = min(x for x in (flash, cudnn) if x is not None) if (flash or cudnn) else None
        row = {"problem": problem, "default_us": default_us, "best_us": best_us, "best_config": best_config,
               "sdpa_flash_us": flash, "sdpa_cudnn_us": cudnn, "default_config": default_config,
               "default_rounds_us": default_rounds, "best_rounds_us": best_rounds, "listed": i < listed}
        verdicts = []
        if best_us:
            row["kv_tbps_best"] = kv_bytes(problem) / (best_us * 1e-6) / 1e12
            if faster:
                row["best_over_faster_sdpa"] = best_us / faster
                verdicts.append("best<=sdpa " + ("PASS" if best_us <= faster else "FAIL"))
            if default_us:
                row["default_over_best"] = default_us / best_us
                verdicts.append("default<=1.5x " + ("PASS" if default_us <= 1.5 * best_us else "FAIL"))
        else:
            verdicts.append("no best")
        if i < 2 and best_us:  # the two large decode rows
            verdicts.append("3.0TB/s " + ("PASS" if row["kv_tbps_best"] >= 3.0 else "FAIL"))
        row["verdicts"] = verdicts
        if i < listed and any("FAIL" in v or v == "no best" for v in verdicts):
            ok_all = False
        rows.append(row)
        fmt = lambda x: f"{x:9.2f}" if x is not None else f"{'-':>9}"
        print(f"{problem:<58} {fmt(default_us)} {fmt(best_us)} {fmt(flash)} {fmt(cudnn)} "
              f"{row.get('kv_tbps_best', 0):8.2f}  {'; '.join(verdicts)}{'' if i < listed else '  (beyond the list)'}",
              file=sys.stderr)
    searches = {}
    for p in sorted((out / "search").glob("*/summary.json")):
        searches[p.parent.name] = json.loads(p.read_text())
    json.dump(rows, sys.stdout, indent=2)
    print(file=sys.stdout)
    (out / "summary_searches.json").write_text(json.dumps(searches, indent=2) + "\n")
    print(f"listed rows: every target met: {ok_all}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
