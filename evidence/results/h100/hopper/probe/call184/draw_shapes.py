# The shapes of probe/call184 (seeds 20261186, 20261187, 20261188), drawn with scripts/probe_draw.py
# (2026-11-27, seventh session), after 8592c5a (the one-wave split rule with its 80% bound).
# REFINE: five random d=256 decode steps (1-8 queries, 2000-32000 keys) of 66-105-CTA grids whose default
# 8592c5a changed from 6e05831's (the count of 85% of the best efficiency -> the fewest chunks filling 80%).
# Configs: the default and the earlier count (written per shape in shapes.txt as REFINE_OLD).
# SURVEY: the twelfth survey, 60 random problems (probe_draw.py survey --seed 20261187; 16 decode-like or
# short chunks). DECODE: 24 random decode steps (call181's draw, seed 20261188).
# Predictions, written before any measurement:
#   REFINE: the new default within 2% of the earlier count or faster on at least four of the five
#   SURVEY: the default at or above the stronger library (the faster of SDPA flash and cuDNN) on >= 57 of 60
#   DECODE: at or above it on >= 22 of 24, none below 0.95x
# Usage, from the repository root: draw_shapes.py NEW_BINARY OLD_BINARY (builds of 8592c5a and 6e05831).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw, fields, unsplit_ctas, survey

new_binary, old_binary = sys.argv[1], sys.argv[2]
used = used_problems(exclude_dir="call184")


def decode_maker(rng, ds, low_keys, max_b):
    def one():
        group = rng.choice([1, 2, 4, 8])
        hkv = rng.choice([1, 2, 4, 8])
        skv = int(math.exp(rng.uniform(math.log(low_keys), math.log(32000))))
        d = rng.choice(ds)
        key = (f"b={rng.randint(1, max_b)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d={d},"
               f"causal={int(rng.random() < 0.3)}")
        return key, rng.choice(["fp16", "bf16"])
    return one


old_counts = {}


def moved(problem):
    new, old = default_config(new_binary, problem), default_config(old_binary, problem)
    if new == old or fields(new)["mma"] != "mma_sync" or not 66 <= unsplit_ctas(problem, new) <= 105:
        return False
    old_counts[problem] = fields(old)["splits"]
    return True


refine = draw(5, decode_maker(random.Random(20261186), [256], 2000, 105), moved, used)
print('REFINE="' + " ".join(refine) + '"')
print('REFINE_OLD="' + " ".join(old_counts[p] for p in refine) + '"')
print('SURVEY="' + " ".join(survey(20261187, used)) + '"')
print('DECODE="' + " ".join(draw(24, decode_maker(random.Random(20261188), [64, 128, 256], 1000, 160),
                                 lambda problem: True, used)) + '"')
