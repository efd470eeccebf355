# The shapes of probe/call180 (seed 20261181), drawn with scripts/probe_draw.py (2026-11-27, sixth session):
# the holdout of the wave rule fit on probe/call179 (heuristic_config: a grid of more CTAs than SMs, of a
# tile one SM holds alone, split by auto_splits' wave efficiency with the unsplit grid's own waves counted).
# Decode-like steps and short chunks (1-16 queries over 1000-32000 keys, d=128 or 256, 1-200 batches) whose
# default the rule changes: eight, each build's default checked to differ only in splits. Usage:
# draw_shapes.py NEW_BINARY BASE_BINARY (a build of 9d81b2a). Configs: the default, splits=1 (the previous
# default), 2 and 4.
# Prediction, written before any measurement: the default faster than splits=1 by 3%+ on at least six of the
# eight, and slower by more than 2% on none.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

new_binary, base_binary = sys.argv[1], sys.argv[2]
used = used_problems(exclude_dir="call180")
rng = random.Random(20261181)


def one():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8])
    skv = int(math.exp(rng.uniform(math.log(1000), math.log(32000))))
    key = (f"b={rng.randint(1, 200)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 16)},skv={skv},"
           f"d={rng.choice([128, 256])},causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def parsed(text):
    return dict(kv.split("=") for kv in text.split(","))


def rule_moves_it(problem):
    new, base = parsed(default_config(new_binary, problem)), parsed(default_config(base_binary, problem))
    return {k for k in new if new[k] != base[k]} == {"splits"} and base["splits"] == "1"


print('SHAPES="' + " ".join(draw(8, one, rule_moves_it, used)) + '"')
