#!/usr/bin/env bash
# probe/call127: non-causal d=64 over 960-1024 keys, where call126 found the persistent 192-row walk (the
# default there) 3% behind the four-CTA config on b14 hq32 hkv8 s1024 (0.998x cuDNN): that shape, heldout_4e6b3ec's
# b4 hq16 s1024 (1.010x) and six drawn for it (draw_shapes.py), each with the default, the walk, the
# four-CTA config on the dynamic scheduler and 128-row tiles with pingpong (no padding rows at 1024),
# persistent and dynamic; two rounds beside SDPA, each side timed with cuDNN's batch. Then a 96-trial search
# of b14 hq32 hkv8 s1024, benched beside SDPA.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
four="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,overlap=off,pingpong=off,producer_regs=24,min_ctas=4,scheduler=dynamic,q_buffers=1,o_store=tma,rescale=lazy"
r192="mma=wgmma,block_m=192,block_n=128,warps=16,stages=2,min_ctas=1,overlap=on,pingpong=on,producer_regs=32,scheduler=persistent,q_buffers=1,o_store=tma,rescale=lazy"
r128="mma=wgmma,block_m=128,block_n=128,warps=12,stages=2,min_ctas=1,overlap=on,pingpong=on,producer_regs=24,q_buffers=1,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="b=14,hq=32,hkv=8,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=4,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16 b=3,hq=64,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16 b=61,hq=8,hkv=2,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=35,hq=8,hkv=8,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=5,hq=32,hkv=16,sq=990,skv=990,d=64,causal=0,dtype=bf16 b=52,hq=8,hkv=2,sq=1022,skv=1022,d=64,causal=0,dtype=bf16 b=55,hq=16,hkv=8,sq=1003,skv=1003,d=64,causal=0,dtype=bf16" \
  BENCH_ROUNDS=2 HOPPER_CONFIGS="default;$r192;$four;$r128,scheduler=persistent;$r128,scheduler=dynamic" \
  timeout 360 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
HOPPER_PROBLEMS="b=14,hq=32,hkv=8,sq=1024,skv=1024,d=64,causal=0,dtype=bf16" \
  HOPPER_BUDGET=96 BENCH_ROUNDS=3 SEARCH_TIMEOUT=90 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/s" sdpa search bench summary
cd "$OUT" && tar czf all.tgz p s && rm -rf p s results.tgz
