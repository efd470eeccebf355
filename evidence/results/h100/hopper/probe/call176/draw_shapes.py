# The shapes of probe/call176 (seed 20261176), drawn with scripts/probe_draw.py (2026-11-27, sixth session):
# the holdout of the d=64 decode split rule fit on probe/call175 (heuristic_config: a grid of short tiles
# that holds half the SMs but less than half the SMs' K/V streams, two an SM at d=64, is split into the
# fewest chunks that fill 80% of the streams). Decode-like steps (1-8 queries) over 4000-32000 keys at
# d=64 whose default is an mma.sync grid of tiles under 128 rows: SPLIT, eight of 66-131 CTAs (the rule
# splits them; the previous default, 5db4645's, left them whole); WHOLE, six of 132-263 CTAs (both leave
# them whole: the rule's other side). Each build's default is checked here to differ only in splits.
# Configs: the default and splits=1, 2, 3, 4.
# Prediction, written before any measurement: SPLIT, the default faster than splits=1 by 3%+ on at least
# seven of the eight, and within 3% of the fastest of the five configs on at least six; WHOLE, unsplit within
# 3% of the fastest on at least four of the six.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

new_binary, old_binary = sys.argv[1], sys.argv[2]
used = used_problems(exclude_dir="call176")
rng = random.Random(20261176)


def one():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8])
    skv = int(math.exp(rng.uniform(math.log(4000), math.log(32000))))
    key = (f"b={rng.randint(1, 264)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d=64,"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def parsed(text):
    return dict(kv.split("=") for kv in text.split(","))


def short_tile_grid(low, high, split):
    def wanted(problem):
        new, old = parsed(default_config(new_binary, problem)), parsed(default_config(old_binary, problem))
        if new["mma"] != "mma_sync" or int(new["block_m"]) >= 128:
            return False
        if {k for k in new if new[k] != old[k]} - {"splits"} or old["splits"] != "1":
            return False
        p = parsed(problem)
        packed = new["pack_gqa"] == "on"
        rows = int(p["sq"]) * (int(p["hq"]) // int(p["hkv"]) if packed else 1)
        ctas = int(p["b"]) * int(p["hkv"] if packed else p["hq"]) * math.ceil(rows / int(new["block_m"]))
        return low <= ctas <= high and (new["splits"] != "1") == split
    return wanted


split = draw(8, one, short_tile_grid(66, 131, True), used)
whole = draw(6, one, short_tile_grid(132, 263, False), used)
print('SPLIT="' + " ".join(split) + '"')
print('WHOLE="' + " ".join(whole) + '"')
