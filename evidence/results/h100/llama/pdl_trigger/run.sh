#!/usr/bin/env bash
# Where the split decode's attention kernel lets its combine kernel launch (griddepcontrol.launch_dependents),
# three builds of 177d8f2's kernels, each with the table re-exported from its own sources (only the decode
# entry's CUBIN differs) and its own libevotune_capi.so (build-var/, packed in build-pack/variants.tar.xz):
#   A: at the kernel's start (the code as committed): the combine's CTAs resident, waiting, for the whole call;
#   B: after the main loop, before the epilogue writes the partials (CUTLASS's convention);
#   C: nowhere: the combine, still a programmatic dependent launch, is launched as the attention grid ends.
# Hypothesis: the graphed LLaMA step's cost of the programmatic combine (plain_combine: 4-11 us a step at
# b2 x 2048) is the combine's CTAs waiting resident from the start; B or C keep the hidden launch without it.
# 1. Isolated calls, L2 flushed (scripts/ab_builds.sh, 3 interleaved rounds): the table's decode config at
#    b2 x 2112 (its problem), b1 x 2048, b4 x 1536, and the JIT default at b8 x 1024; A_plain = A's build with
#    --combine-launch plain.
# 2. The graphed decode step in the 4-layer model (scripts/decode_graph_probe.py) per build, A B C A B C, at
#    b2 x 2048, b1 x 2048, b4 x 1536, b8 x 1024 (JIT allowed: b8 x 1024 is not covered by the table).
# Predictions, written before the call:
#   - isolated: B within 2% of A; C and A_plain 2-5% slower than A at b2 x 2112 (A_plain 9.67 vs 9.33 before);
#   - graphed b2 x 2048: A 0.994-1.000x SDPA's best; evotune_plain_combine 4-11 us a step faster than A;
#     B and C at least as fast as plain (within 2 us a step), so ahead of A by >= 4 us;
#   - graphed b1 x 2048, b4 x 1536, b8 x 1024 (where plain was slower than A): B no slower than A (within 2 us).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 EVOTUNE_JIT=1 EVOTUNE_SOURCE_DIR="$PWD"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
out="$OUT/pdl_trigger"
mkdir -p "$out"
pack() { tar czf "$OUT/results.tgz" -C "$OUT" pdl_trigger; }
tar xJf build-pack/variants.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$out/machine.txt" 2>&1
printf '#!/usr/bin/env bash\nargs=()\nfor a in "$@"; do args+=("$a"); [[ $a == bench ]] && args+=(--combine-launch plain); done\nexec %s "${args[@]}"\n' \
  "$PWD/build-var/A/evotune" >build-var/A_plain_evotune && chmod +x build-var/A_plain_evotune
start=$SECONDS
for v in A B C A B C; do
  EVOTUNE_CAPI_LIBRARY="$PWD/build-var/$v/libevotune_capi.so" timeout 100 "$python" scripts/decode_graph_probe.py \
    --out "$out/graph_$v.$SECONDS.json" --label "$v" --shapes 2x2048,1x2048,4x1536,8x1024 >>"$out/graph.txt" 2>&1
  echo "$v: exit $?" >>"$out/graph.txt"
  pack
done
grep -E "x[0-9]+: |exit" "$out/graph.txt" | sed 's/^\[[0-9:]*\] //'
echo "[graph: $((SECONDS - start)) s]"
table="mma=mma_sync,block_m=16,block_n=64,warps=4,stages=3,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=off,qk_split=1,kv_warps=4,splits=8,combine=kernel,pack_gqa=on,pingpong=off,producer_regs=none,scheduler=grid,q_buffers=1,o_store=threads,rescale=every,skip_idle=off,tile_order=heads"
cases=()
for p in 2,hq=32,hkv=8,sq=1,skv=2112 1,hq=32,hkv=8,sq=1,skv=2048 4,hq=32,hkv=8,sq=1,skv=1536; do
  cases+=("b=$p,d=128,causal=0,dtype=bf16|$table")
done
cases+=("b=8,hq=32,hkv=8,sq=1,skv=1024,d=128,causal=0,dtype=bf16|default")
start=$SECONDS
ROUNDS=3 REPS=300 timeout 200 scripts/ab_builds.sh "$out/ab.txt" \
  "A=build-var/A/evotune,B=build-var/B/evotune,C=build-var/C/evotune,A_plain=build-var/A_plain_evotune" "${cases[@]}"
echo "[ab: $((SECONDS - start)) s]"
pack
