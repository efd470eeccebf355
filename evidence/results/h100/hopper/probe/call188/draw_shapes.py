# The shapes of probe/call188 (seed 20261190), drawn with scripts/probe_draw.py (2026-11-27, seventh session,
# for the next one: the session's device time was spent). MHA d=128 decode, the class of the two surveys'
# systematic residual: b80 hq4 hkv4 sq8 skv26684 fp16 (call184: 0.966x cuDNN, 2.78 against 2.87 TB/s) and
# b43 hq32 hkv32 sq1 skv12790 fp16 (call178: 0.979x, 3.04 against 3.11 TB/s), and eight drawn: MHA decode
# steps (1-8 queries, 2000-32000 keys, 4-32 heads) whose default is an unsplit grid of 132+ CTAs of the d=128
# 16-row mma.sync tile (the K/V stream is the whole cost).
# Configs (run.sh): the default; the other stage count (2 <-> 3); 128-key blocks two deep (one CTA an SM);
# the wgmma mainloop with TMA, 64 rows of 128-key blocks three deep (one CTA an SM); 64-key blocks four deep;
# and 2 chunks (a tail model: a last wave of under ~70 of these CTAs streams at the CTAs' own pace, not the
# HBM's; b80's 320 CTAs leave 56 after 264 slots, 2 chunks leave 112).
# Predictions, written before any measurement:
#   the default below cuDNN on at least five of the ten (the class is systematically 2-3% behind)
#   the wgmma 64x128 three-deep config faster than the default on at least five of the ten (one thread
#   issues each 32 KiB block by TMA, where the cp.async ring issues 16-byte copies from every thread)
#   2 chunks 2%+ faster than the default on b80; within 2% of it on the four grids of 4+ waves (b43 hq32,
#   b101, b70, b115), where one short last wave weighs little
# Usage, from the repository root: draw_shapes.py BINARY (a build of 6f79240 or later).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas

binary = sys.argv[1]
used = used_problems(exclude_dir="call188")
rng = random.Random(20261190)


def one():
    heads = rng.choice([4, 8, 16, 32])
    skv = int(math.exp(rng.uniform(math.log(2000), math.log(32000))))
    key = (f"b={rng.randint(1, 160)},hq={heads},hkv={heads},sq={rng.randint(1, 8)},skv={skv},d=128,"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def wanted(problem):
    config = default_config(binary, problem)
    c = fields(config)
    return (c["mma"] == "mma_sync" and c["block_m"] == "16" and c["splits"] == "1"
            and unsplit_ctas(problem, config) >= 132)


shapes = ["b=80,hq=4,hkv=4,sq=8,skv=26684,d=128,causal=0,dtype=fp16",
          "b=43,hq=32,hkv=32,sq=1,skv=12790,d=128,causal=0,dtype=fp16"]
shapes += draw(8, one, wanted, used)
print('MHA="' + " ".join(shapes) + '"')
