#!/usr/bin/env bash
# probe/call126: the one shape of call125's survey below cuDNN (b35 hq48 hkv24 s1785 d64 causal, 0.988x, its
# two rounds 2% apart) and call125's b50 hq28 hkv14 s1551, both many-tile causal d=64 under 2048 keys on the
# four-CTA config, with six more such shapes drawn for it (draw_shapes.py): the default against 192-row
# tiles with pingpong (skip_idle on, where a head's last tile idles a warpgroup) and 128-row tiles with
# overlap. Then call125's closest non-causal row (b14 hq32 hkv8 s1024 d64 bf16, 1.012x, the persistent
# 192-row walk) and three more non-causal d=64 shapes over 768-1024 keys: the default, the walk, and the
# four-CTA config on the dynamic scheduler. Three rounds, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
four="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,overlap=off,pingpong=off,producer_regs=24,min_ctas=4,q_buffers=1,o_store=tma,rescale=lazy"
r192="mma=wgmma,block_m=192,block_n=128,warps=16,stages=2,min_ctas=1,overlap=on,pingpong=on,producer_regs=32,q_buffers=1,o_store=tma,rescale=lazy"
r128="mma=wgmma,block_m=128,block_n=128,warps=12,stages=2,min_ctas=1,overlap=on,pingpong=off,producer_regs=32,scheduler=dynamic,q_buffers=1,o_store=tma,rescale=lazy"
HOPPER_PROBLEMS="b=35,hq=48,hkv=24,sq=1785,skv=1785,d=64,causal=1,dtype=fp16 b=50,hq=28,hkv=14,sq=1551,skv=1551,d=64,causal=1,dtype=bf16 b=19,hq=8,hkv=2,sq=1920,skv=1920,d=64,causal=1,dtype=fp16 b=35,hq=28,hkv=14,sq=1342,skv=1342,d=64,causal=1,dtype=fp16 b=21,hq=16,hkv=2,sq=1134,skv=1134,d=64,causal=1,dtype=fp16 b=31,hq=48,hkv=48,sq=1600,skv=1600,d=64,causal=1,dtype=fp16 b=36,hq=40,hkv=10,sq=1945,skv=1945,d=64,causal=1,dtype=bf16 b=31,hq=64,hkv=32,sq=1568,skv=1568,d=64,causal=1,dtype=bf16" \
  BENCH_ROUNDS=3 HOPPER_CONFIGS="default;$r192,scheduler=dynamic,skip_idle=on;$r128" \
  timeout 360 scripts/gpu_hopper.sh build-device "$OUT/c" machine sdpa probe | grep -v "^[123] b="
HOPPER_PROBLEMS="b=14,hq=32,hkv=8,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=51,hq=48,hkv=48,sq=816,skv=816,d=64,causal=0,dtype=bf16 b=13,hq=32,hkv=32,sq=887,skv=887,d=64,causal=0,dtype=bf16 b=6,hq=24,hkv=3,sq=896,skv=896,d=64,causal=0,dtype=fp16" \
  BENCH_ROUNDS=3 HOPPER_CONFIGS="default;$r192,scheduler=persistent;$four,scheduler=dynamic" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/n" sdpa probe | grep -v "^[123] b="
cd "$OUT" && tar czf all.tgz c n && rm -rf c n results.tgz
