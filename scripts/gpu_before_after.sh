#!/usr/bin/env bash
# Two builds of evotune side by side on the device machine: the same problems' problem-aware defaults timed
# by each build's `evotune bench` in alternation (base, then build, per problem, in $ROUNDS rounds), so the
# GPU's drift reaches both alike. For a change that must not move attention's performance (issue 49's
# re-layout), the ratios should sit at 1 within the spread of the rounds.
#   scripts/gpu_before_after.sh [BUILD_DIR] [OUT_DIR]      (base: build-base/, from scripts/device_pack.sh)
# Problems: $PROBLEMS (space-separated), default the issue's six listed rows and 20 shapes drawn by
#   python3 scripts/probe_draw.py survey --seed 2026112849 --count 20 --short 4
# Outputs under OUT_DIR/before-after: bench.jsonl (one line per bench run, tagged build/round),
# summary.json (per problem: each build's median over rounds, the ratio, the rounds' spread), machine.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=before-after
default_steps=(machine)
source scripts/gpu_common.sh "$@"
base="${BASE_BUILD:-build-base}"
rounds="${ROUNDS:-3}"
listed="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=0,dtype=bf16 b=2,hq=32,hkv=4,sq=8192,skv=8192,d=128,causal=1,dtype=bf16"
drawn="b=54,hq=28,hkv=4,sq=309,skv=309,d=128,causal=1,dtype=bf16 b=13,hq=8,hkv=1,sq=4063,skv=4063,d=64,causal=0,dtype=fp16 b=2,hq=12,hkv=6,sq=1473,skv=1473,d=256,causal=1,dtype=fp16 b=2,hq=48,hkv=6,sq=1725,skv=3450,d=256,causal=0,dtype=fp16 b=10,hq=64,hkv=64,sq=1412,skv=2118,d=128,causal=1,dtype=fp16 b=18,hq=16,hkv=2,sq=2389,skv=2389,d=64,causal=1,dtype=bf16 b=13,hq=28,hkv=4,sq=199,skv=199,d=128,causal=0,dtype=fp16 b=38,hq=28,hkv=28,sq=256,skv=768,d=128,causal=1,dtype=bf16 b=61,hq=32,hkv=4,sq=832,skv=832,d=128,causal=1,dtype=bf16 b=10,hq=64,hkv=64,sq=192,skv=192,d=128,causal=1,dtype=bf16 b=21,hq=28,hkv=7,sq=554,skv=2216,d=256,causal=0,dtype=bf16 b=11,hq=40,hkv=20,sq=1024,skv=4096,d=64,causal=0,dtype=fp16 b=1,hq=40,hkv=10,sq=4991,skv=4991,d=64,causal=0,dtype=fp16 b=49,hq=16,hkv=8,sq=225,skv=900,d=64,causal=1,dtype=bf16 b=1,hq=40,hkv=5,sq=3520,skv=3520,d=256,causal=0,dtype=fp16 b=35,hq=8,hkv=1,sq=226,skv=226,d=64,causal=1,dtype=fp16 b=19,hq=28,hkv=14,sq=127,skv=2385,d=128,causal=1,dtype=fp16 b=60,hq=32,hkv=4,sq=24,skv=20049,d=64,causal=1,dtype=fp16 b=37,hq=48,hkv=24,sq=127,skv=9642,d=128,causal=1,dtype=fp16 b=30,hq=12,hkv=6,sq=2,skv=975,d=128,causal=0,dtype=bf16"
read -ra problems <<<"${PROBLEMS:-$listed $drawn}"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
common_step machine
echo "base: $(tr '\n' ' ' <"$base/source_commit.txt")" >>"$out/machine.txt"
: >"$out/bench.jsonl"
status=0
for p in "${problems[@]}"; do
  for r in $(seq 1 "$rounds"); do
    for side in base build; do
      binary="$build/cli/evotune"
      [[ $side == base ]] && binary="$base/cli/evotune"
      "$binary" bench --problem "$p" --no-baseline --reps "${REPS:-50}" --json 2>>"$out/bench.err" | "$python" -c '
import json, sys
record = json.load(sys.stdin)
record["side"], record["round"] = sys.argv[1], int(sys.argv[2])
print(json.dumps({k: record[k] for k in ("problem", "config", "config_hash", "side", "round", "kernel", "resources")}))' \
        "$side" "$r" >>"$out/bench.jsonl" || { echo "bench failed: $side $p"; status=1; }
    done
  done
done
"$python" - "$out" "${#problems[@]}" <<'EOF'
import json, statistics, sys
out, listed = sys.argv[1], 6
rows, order = {}, []
for line in open(f"{out}/bench.jsonl"):
    r = json.loads(line)
    if r["problem"] not in rows:
        rows[r["problem"]] = {"problem": r["problem"], "config": r["config"], "base": [], "build": [], "configs": set()}
        order.append(r["problem"])
    rows[r["problem"]][r["side"]].append(r["kernel"]["median_us"])
    rows[r["problem"]]["configs"].add(r["config_hash"])
summary = []
for i, p in enumerate(order):
    row = rows[p]
    base, build = statistics.median(row["base"]), statistics.median(row["build"])
    spread = max(max(row["base"]) / min(row["base"]), max(row["build"]) / min(row["build"])) - 1
    summary.append({"problem": p, "listed": i < listed, "config": row["config"], "same_config": len(row["configs"]) == 1,
                    "base_us": base, "build_us": build, "build_over_base": build / base, "round_spread": spread,
                    "rounds": len(row["base"])})
ratios = [s["build_over_base"] for s in summary]
result = {"rows": summary, "geomean_build_over_base": statistics.geometric_mean(ratios),
          "min_ratio": min(ratios), "max_ratio": max(ratios),
          "same_config_everywhere": all(s["same_config"] for s in summary)}
json.dump(result, open(f"{out}/summary.json", "w"), indent=2)
for s in summary:
    print(f'{s["build_over_base"]:.3f}  base {s["base_us"]:9.2f}  build {s["build_us"]:9.2f}  spread {100*s["round_spread"]:4.1f}%  {s["problem"]}')
print(f'geomean {result["geomean_build_over_base"]:.4f}, min {result["min_ratio"]:.3f}, max {result["max_ratio"]:.3f}, '
      f'same config everywhere: {result["same_config_everywhere"]}')
EOF
pack
exit $status
