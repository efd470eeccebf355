# The shapes of probe/call182 (seeds 20261183, 20261184), drawn with scripts/probe_draw.py (written
# 2026-11-27, sixth session, for the next one, after the device time was spent): call181's two decode misses
# as classes.
# JUST_PAST: d=128 decode steps (1-4 queries x group <= 16 rows, 4000-32000 keys) whose default is the 16-row
# mma.sync grid of 133-170 CTAs, unsplit, two stages by the stage rule (v29: more CTAs than SMs, a last wave of
# 264 slots over 33), though only ctas - 132 SMs hold two CTAs: call181's b138 hq2 hkv1 sq1 skv10383 fp16
# (0.945x cuDNN) and seven drawn. Configs: the default, stages=3, splits=2, splits=2 with stages=3.
# ONE_WAVE: d=256 decode steps (1-8 queries, 2000-32000 keys) whose default is an unsplit grid of 66-131 CTAs
# of a tile one SM holds alone (one wave, SMs left idle): call181's b43 hq2 hkv2 sq4 skv12641 bf16 (86 CTAs,
# 0.967x cuDNN) and seven drawn. Configs: the default and splits=2, 3, 4, 6.
# Predictions, written before any measurement:
#   JUST_PAST, of 133-151 CTAs (fewer than a sixth of the SMs hold two): stages=3 within 0.5% of stages=2 or
#     faster on at least four of the five such shapes; of 152-170: stages=2 faster on at least two of three
#     (call167 found it faster on all six of 152-224 CTAs)
#   ONE_WAVE: a split (2-6) faster than unsplit by 3%+ on at least five of the eight (call179: 4 chunks
#     faster by 7.2% and 3.0% on two 102-CTA grids; unsplit fastest on a 113-CTA one)
# Usage, from the repository root: draw_shapes.py BINARY (a build of d69d5c0 or later).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas

binary = sys.argv[1]
used = used_problems(exclude_dir="call182")


def maker(rng, d, max_sq, low_keys):
    def one():
        group = rng.choice([1, 2, 4, 8])
        hkv = rng.choice([1, 2, 4, 8])
        skv = int(math.exp(rng.uniform(math.log(low_keys), math.log(32000))))
        key = (f"b={rng.randint(1, 170)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, max_sq)},skv={skv},"
               f"d={d},causal={int(rng.random() < 0.3)}")
        return key, rng.choice(["fp16", "bf16"])
    return one


def grid(low, high, **want):
    def wanted(problem):
        config = default_config(binary, problem)
        c = fields(config)
        if c["mma"] != "mma_sync" or int(c["block_m"]) >= 128 or c["splits"] != "1":
            return False
        if any(c[k] != str(v) for k, v in want.items()):
            return False
        return low <= unsplit_ctas(problem, config) <= high
    return wanted


rng = random.Random(20261183)
just_past = ["b=138,hq=2,hkv=1,sq=1,skv=10383,d=128,causal=0,dtype=fp16"]
just_past += draw(4, maker(rng, 128, 4, 4000), grid(133, 151, block_m=16, stages=2), used)
just_past += draw(3, maker(rng, 128, 4, 4000), grid(152, 170, block_m=16, stages=2), used)
rng = random.Random(20261184)
one_wave = ["b=43,hq=2,hkv=2,sq=4,skv=12641,d=256,causal=0,dtype=bf16"]
one_wave += draw(7, maker(rng, 256, 8, 2000), grid(66, 131), used)
print('JUST_PAST="' + " ".join(just_past) + '"')
print('ONE_WAVE="' + " ".join(one_wave) + '"')
