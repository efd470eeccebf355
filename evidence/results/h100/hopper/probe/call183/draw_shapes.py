# The shapes of probe/call183 (seed 20261185), drawn with scripts/probe_draw.py (2026-11-27, seventh session):
# the holdout of 14a2e75's rule (one-wave grids of one-an-SM tiles, half the SMs up to 80% of them, split by
# wave efficiency into chunks of 1024+ keys).
# HOLDOUT: eight random decode steps (1-8 queries, 2000-32000 keys, d=256, MHA to groups of 8) whose default
# is a 66-105-CTA unsplit grid that the rule splits; then two earlier shapes it also moves: b23 hq24 hkv3 sq1
# skv24599 d256 bf16 (69 CTAs, 8 chunks; probe/call139 measured 8 chunks 1.4% slower than unsplit there, the
# unsplit grid already at 3.03 TB/s) and b51 hq2 hkv2 sq8 skv14713 bf16 (102 CTAs, 6 chunks; call179: 4 chunks
# 6.7% faster, 6 not run). Configs: the default, the default unsplit (splits=1), and 4 chunks.
# Predictions, written before any measurement:
#   the default 3%+ faster than unsplit on at least six of the eight drawn, more than 2% slower on none
#   of the eight, the default within 2% of the faster of unsplit and 4 chunks on at least seven
#   b23: 8 chunks within 2% of unsplit either way; b51: 6 chunks 3%+ faster than unsplit
# Usage, from the repository root: draw_shapes.py BINARY (a build of 14a2e75 or later).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas

binary = sys.argv[1]
used = used_problems(exclude_dir="call183")
rng = random.Random(20261185)


def one():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8])
    skv = int(math.exp(rng.uniform(math.log(2000), math.log(32000))))
    key = (f"b={rng.randint(1, 105)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d=256,"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def moved(problem):
    config = default_config(binary, problem)
    c = fields(config)
    return c["mma"] == "mma_sync" and c["splits"] != "1" and 66 <= unsplit_ctas(problem, config) <= 105


holdout = draw(8, one, moved, used)
holdout += ["b=23,hq=24,hkv=3,sq=1,skv=24599,d=256,causal=0,dtype=bf16",
            "b=51,hq=2,hkv=2,sq=8,skv=14713,d=256,causal=0,dtype=bf16"]
print('HOLDOUT="' + " ".join(holdout) + '"')
