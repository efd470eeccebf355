# The shapes of probe/call191, drawn with scripts/probe_draw.py (2026-11-27, eighth session): a decode survey at
# the lone-last-wave rule (0ac4626), nobody choosing the shapes.
# DECODE: 24 random decode steps, call181/call184's draw (probe_draw.decode_steps: 1-8 queries, 1000-32000
#   keys, d 64/128/256, groups 1-8, KV heads 1-8, batch 1-160; seed 20261193).
# MHA128: 16 random MHA d=128 decode steps (8-40 heads, 1-8 queries, 1000-32000 keys, batch 1-160, a third
#   causal; seed 20261194), the class two surveys found 2-3% under cuDNN (call178, call184), whatever their
#   default; K/V at most 6 GB each.
# Config: the default. Predictions, written before any measurement:
#   DECODE: at or above the stronger library (cuDNN, or flash where faster) on at least 22 of 24, none below
#     0.95x
#   MHA128: at or above it on at least 13 of 16, median 1.01x or more; every grid the rule splits 0.99x or
#     more
# Usage, from the repository root: draw_shapes.py BINARY (a build of 0ac4626 or later).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, draw, decode_steps, fields

binary = sys.argv[1]
used = used_problems(exclude_dir="call191")
decode = draw(24, decode_steps(random.Random(20261193), [64, 128, 256], 1000, 160), lambda p: True, used)
rng = random.Random(20261194)


def mha():
    heads = rng.choice([8, 12, 16, 24, 32, 40])
    skv = int(math.exp(rng.uniform(math.log(1000), math.log(32000))))
    key = (f"b={rng.randint(1, 160)},hq={heads},hkv={heads},sq={rng.randint(1, 8)},skv={skv},d=128,"
           f"causal={int(rng.random() < 1 / 3)}")
    return key, rng.choice(["fp16", "bf16"])


def small(problem):
    p = fields(problem)
    return int(p["b"]) * int(p["hkv"]) * int(p["skv"]) * int(p["d"]) * 4 <= 6e9


print('DECODE="' + " ".join(decode) + '"')
print('MHA128="' + " ".join(draw(16, mha, small, used)) + '"')
