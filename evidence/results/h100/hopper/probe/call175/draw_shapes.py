# The shapes of probe/call175 (seed 20261175), drawn with scripts/probe_draw.py (written 2026-11-27, fifth
# session, for the next one): call174's decode hole taken as a class. Decode steps (1-4 queries) whose
# default is the mma.sync grid of 16-row tiles left unsplit by the rule for grids of half the SMs, with
# 66-132 CTAs (at most one an SM), over 4000-32000 keys: D64, call174's b18 hq32 hkv4 sq1 skv26578 (72
# CTAs, 0.883x flash) and eight drawn at d=64; D128, six at d=128 as a control. Configs: the default
# (unsplit) and splits=2, 3, 4. Prediction, written before any measurement: at d=64 a split count (2-4)
# faster than unsplit by 3%+ on at least six of the eight drawn; at d=128 unsplit within 3% of the best on
# at least four of the six (the rule's holdout, probe/call139, was mostly d=128).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

binary = sys.argv[1]
used = used_problems(exclude_dir="call175")
rng = random.Random(20261175)


def make(d):
    def one():
        group = rng.choice([2, 4, 8])
        hkv = rng.choice([1, 2, 4, 8])
        skv = int(math.exp(rng.uniform(math.log(4000), math.log(32000))))
        key = (f"b={rng.randint(1, 132)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 4)},skv={skv},d={d},"
               f"causal={int(rng.random() < 0.3)}")
        return key, rng.choice(["fp16", "bf16"])
    return one


def unsplit_grid_of_66_to_132(problem):
    c = dict(kv.split("=") for kv in default_config(binary, problem).split(","))
    if (c["mma"], c["block_m"], c["splits"]) != ("mma_sync", "16", "1"):
        return False
    p = dict(kv.split("=") for kv in problem.split(","))
    rows = int(p["sq"]) * int(p["hq"]) // int(p["hkv"])
    ctas = int(p["b"]) * int(p["hkv"]) * math.ceil(rows / 16) if c["pack_gqa"] == "on" else 0
    return 66 <= ctas <= 132


hole = "b=18,hq=32,hkv=4,sq=1,skv=26578,d=64,causal=0,dtype=bf16"
d64 = [hole] + draw(8, make(64), unsplit_grid_of_66_to_132, used)
d128 = draw(6, make(128), unsplit_grid_of_66_to_132, used)
print('D64="' + " ".join(d64) + '"')
print('D128="' + " ".join(d128) + '"')
