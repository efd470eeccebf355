# The shapes of probe/call169 (seed 20261169), drawn with scripts/probe_draw.py: the d=128 decode grids' stage
# rule held out, build against build (the new build's default: stages=2; the base's: three). d=128
# decode-like problems (1-16 queries, GQA groups 1/2/4/8, 500-32000 keys, causal or not) whose default the
# rule moves, by CTAs: five of 133-264 (one wave), five of 265-800, four of 801-3200 (four to twelve waves,
# beyond call166-168's 720). Prediction, written before the call: the new build faster, or within 1%, on at
# least eleven of the fourteen.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

new, base = sys.argv[1], sys.argv[2]
used = used_problems(exclude_dir="call169")
rng = random.Random(20261169)


def make():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([2, 4, 8, 16, 32]) if group > 1 else rng.choice([8, 12, 16, 24, 32, 40, 48, 64])
    skv = int(math.exp(rng.uniform(math.log(500), math.log(32000))))
    key = (f"b={rng.randint(1, 64)},hq={hkv * group},hkv={hkv},sq={rng.randint(1, 16)},skv={skv},d=128,"
           f"causal={int(rng.random() < 0.3)}")
    return key, rng.choice(["fp16", "bf16"])


def moved_ctas(problem):
    c = dict(kv.split("=") for kv in default_config(new, problem).split(","))
    if c["stages"] != "2" or default_config(base, problem) == default_config(new, problem):
        return 0
    p = dict(kv.split("=") for kv in problem.split(","))
    b, hq, hkv, sq = (int(p[k]) for k in ("b", "hq", "hkv", "sq"))
    return b * hkv * math.ceil(sq * hq // hkv / 16) if c["pack_gqa"] == "on" else b * hq * math.ceil(sq / 16)


shapes = []
for lo, hi, count in [(133, 264, 5), (265, 800, 5), (801, 3200, 4)]:
    shapes += draw(count, make, lambda problem: lo <= moved_ctas(problem) <= hi, used)
print('MOVED="' + " ".join(shapes) + '"')
