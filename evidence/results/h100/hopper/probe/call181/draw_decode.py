# The DECODE shapes of probe/call181 (seed 20261182), drawn with scripts/probe_draw.py (2026-11-27, sixth
# session): twenty-four random decode steps (1-8 queries over 1000-32000 keys, every head dim, 1-160 batches,
# MHA to groups of 8), the class of the split rules of probe/call175-180, after the last of them (d7992a3).
# Prediction, written before any measurement: the default at or above the stronger library (the faster of
# SDPA flash and cuDNN) on at least 22 of the 24, none below 0.95x.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, draw

used = used_problems(exclude_dir="call181")
rng = random.Random(20261182)


def one():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8])
    skv = int(math.exp(rng.uniform(math.log(1000), math.log(32000))))
    d = rng.choice([64, 128, 256])
    key = (f"b={rng.randint(1, 160)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 8)},skv={skv},d={d},"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


print('DECODE="' + " ".join(draw(24, one, lambda problem: True, used)) + '"')
