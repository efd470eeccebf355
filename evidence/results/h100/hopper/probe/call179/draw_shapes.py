# The shapes of probe/call179 (seed 20261180), drawn with scripts/probe_draw.py (2026-11-27, sixth session):
# call178's decode miss as a class. d=256 decode steps (1-8 queries over 1000-32000 keys) whose default is
# the unsplit mma.sync grid of tiles under 128 rows, a tile one SM holds alone (205 KB of shared memory at
# 16 rows): OVER, call178's b43 hq32 hkv4 sq1 skv4766 (172 CTAs) and six drawn of 133-263 CTAs (two waves,
# the second partial); ONE, three of 66-132 CTAs (one wave) as a control. Configs: the default, splits=2,
# 3 and 4, and the 64-key ring cut to 32-key blocks of two key warps (106 KB: two an SM) unsplit and split
# in 2.
# Prediction, written before any measurement: OVER, one of the other configs faster than the default by 5%+
# on at least five of the seven; ONE, the default within 3% of the fastest on at least two of the three.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

binary = sys.argv[1]
used = used_problems(exclude_dir="call179")
rng = random.Random(20261180)


def one():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8])
    skv = int(math.exp(rng.uniform(math.log(1000), math.log(32000))))
    key = (f"b={rng.randint(1, 132)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d=256,"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def parsed(text):
    return dict(kv.split("=") for kv in text.split(","))


def unsplit_grid(low, high):
    def wanted(problem):
        c = parsed(default_config(binary, problem))
        if c["mma"] != "mma_sync" or int(c["block_m"]) >= 128 or c["splits"] != "1":
            return False
        p = parsed(problem)
        packed = c["pack_gqa"] == "on"
        rows = int(p["sq"]) * (int(p["hq"]) // int(p["hkv"]) if packed else 1)
        ctas = int(p["b"]) * int(p["hkv"] if packed else p["hq"]) * math.ceil(rows / int(c["block_m"]))
        return low <= ctas <= high
    return wanted


hole = "b=43,hq=32,hkv=4,sq=1,skv=4766,d=256,causal=0,dtype=fp16"
over = [hole] + draw(6, one, unsplit_grid(133, 263), used)
control = draw(3, one, unsplit_grid(66, 132), used)
print('OVER="' + " ".join(over) + '"')
print('ONE="' + " ".join(control) + '"')
