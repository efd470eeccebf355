# The shapes of probe/call189 (seed 20261191), drawn with scripts/probe_draw.py (2026-11-27, eighth session),
# after probe/call188: there, on ten MHA d=128 decode grids of the 16-row mma.sync tile (two CTAs an SM, 264
# slots on the H100), 2 chunks were faster than the unsplit default where the grid's last wave of 264 left
# many slots idle: b80 hq4 sq8 skv26684 (320 CTAs: waves fill 61% of their slots) 8.5%, b34 hq8 sq8
# skv3485 causal (272, 52%) 6.8%, b83 hq4 sq8 skv3545 (332, 63%) 4.8%, b23 hq16 sq6 skv30870 (368, 70%)
# 3.7%, b43 hq32 sq1 skv12790 (1376, 87%) 2.1%, b70 hq16 sq8 skv11553 (1120, 85%) 1.5%; level or slower
# where they were full (b101, 94%: 0.0%; b115, 99.6%: -1.4%; b112 causal, 97%: -1.4%) and on a grid under
# the slots (b41 hq4 sq3 causal, 164 CTAs: -6.8%). A tail model: the waves' idle share is the cost, and a
# split's shorter CTAs shrink it.
# SPLIT128: nine decode steps (1-8 queries, 1500-32000 keys) whose default is an unsplit mma.sync grid of a
#   d=128 tile under 128 rows (two an SM) of more CTAs than the 264 slots, its waves filling under 90% of
#   them; two thirds MHA (8-40 heads), a third GQA (packed rows).
# CONTROL128: three such steps whose waves fill 90% or more.
# D64: four d=64 steps (16-row tile, four an SM: 528 slots) of more CTAs than 528, filling under 90%.
# Each step's K/V bytes at most 6 GB (~2 ms at 3 TB/s), so that the call stays short.
# Configs (run.sh): the default; 2, 3, 4 and 6 chunks (the default's stages); 3 chunks three stages deep.
# Predictions, written before any measurement (efficiency: CTAs / (waves x slots); the rule to test picks
# the fewest chunks of 1024+ keys whose grid fills 90% of its waves, or, if none does, the most efficient):
#   SPLIT128: the fastest of 2/3/4/6 chunks 2%+ faster than unsplit on at least 7 of 9
#   SPLIT128: that rule's count within 1.5% of the fastest config on at least 7 of 9
#   CONTROL128: no count 1.5%+ faster than unsplit on any of the 3
#   D64: the fastest count 2%+ faster than unsplit on at least 3 of 4
#   3 chunks: the default's stages within 1% of three stages, or faster, on at least 7 of the 9 SPLIT128
# Usage, from the repository root: draw_shapes.py BINARY (a build of 413016b or later).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas

binary = sys.argv[1]
used = used_problems(exclude_dir="call189")
rng = random.Random(20261191)


def maker(d):
    def one():
        if rng.random() < 2 / 3:
            hkv = hq = rng.choice([8, 12, 16, 24, 32, 40])
        else:
            hkv = rng.choice([2, 4, 8])
            hq = hkv * rng.choice([2, 4, 8])
        skv = int(math.exp(rng.uniform(math.log(1500), math.log(32000))))
        key = (f"b={rng.randint(1, 160)},hq={hq},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d={d},"
               f"causal={int(rng.random() < 0.3)}")
        return key, rng.choice(["fp16", "bf16"])
    return one


def efficiency(ctas, slots):
    return ctas / (math.ceil(ctas / slots) * slots)


def wanted(slots, low, high):
    def test(problem):
        p = fields(problem)
        if int(p["b"]) * int(p["hkv"]) * int(p["skv"]) * int(p["d"]) * 4 > 6e9:
            return False
        c = fields(default_config(binary, problem))
        ctas = unsplit_ctas(problem, ",".join(f"{k}={v}" for k, v in c.items()))
        return (c["mma"] == "mma_sync" and int(c["block_m"]) < 128 and c["splits"] == "1" and ctas > slots
                and low <= efficiency(ctas, slots) < high)
    return test


split128 = draw(9, maker(128), wanted(264, 0, 0.9), used)
control128 = draw(3, maker(128), wanted(264, 0.9, 1.01), used)
d64 = draw(4, maker(64), wanted(528, 0, 0.9), used)
print('SPLIT128="' + " ".join(split128) + '"')
print('CONTROL128="' + " ".join(control128) + '"')
print('D64="' + " ".join(d64) + '"')
