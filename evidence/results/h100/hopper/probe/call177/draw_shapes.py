# The shapes of probe/call177 (seed 20261177), drawn with scripts/probe_draw.py (2026-11-27, sixth session):
# the holdout of the split count changed after probe/call176. 3512286 split a d=64 decode grid of 66-131
# CTAs into the fewest chunks that fill 80% of the SMs' 264 K/V streams; call176's two misses and call175's
# b100/b102 (100-102 CTAs, 3 chunks past the 264 streams, 2 faster by 0.4-4.4%) led to the most chunks that
# stay within the streams. The two differ at 67-70 CTAs (4 / 3 chunks) and 89-131 CTAs whose 80% count is 3
# (3 / 2). Eight such shapes (decode-like, 1-8 queries, 4000-32000 keys, d=64), the default of each build
# checked to differ from 5db4645's (unsplit) only in splits. Usage: draw_shapes.py NEW_BINARY RULE80_BINARY
# (a build of 3512286). Configs: the default and splits=1, 2, 3, 4.
# Prediction, written before any measurement: the new count faster than the 80% count on at least six of the
# eight, and within 3% of the fastest of splits 1-4 on at least seven.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

new_binary, rule80_binary = sys.argv[1], sys.argv[2]
used = used_problems(exclude_dir="call177")
rng = random.Random(20261177)


def one():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8])
    skv = int(math.exp(rng.uniform(math.log(4000), math.log(32000))))
    key = (f"b={rng.randint(1, 132)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d=64,"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def parsed(text):
    return dict(kv.split("=") for kv in text.split(","))


def counts_differ(problem):
    new, rule80 = parsed(default_config(new_binary, problem)), parsed(default_config(rule80_binary, problem))
    if new["mma"] != "mma_sync" or int(new["block_m"]) >= 128 or new["splits"] == "1":
        return False
    return {k for k in new if new[k] != rule80[k]} == {"splits"}


shapes = draw(8, one, counts_differ, used)
print('SHAPES="' + " ".join(shapes) + '"')
