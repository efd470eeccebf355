# The shapes of probe/call167 (seed 20261167), drawn with scripts/probe_draw.py: call166's lead held out.
# d=128 decode-like problems (1-16 queries, GQA groups 1/2/4/8, 1000-16000 keys, causal or not) whose
# default is the mma.sync grid of 16-row tiles with three stages, unsplit: FIT, twelve whose CTAs (66-264)
# all fit one wave of two an SM; OVER, four of 265-528 CTAs. Prediction, written before the call: stages=2
# faster than the default by at least 1% on nine or more of the twelve FIT; no prediction for OVER (call166:
# +1.2% at 416 CTAs, -9.4% at 532).
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

binary = sys.argv[1]
used = used_problems(exclude_dir="call167")
rng = random.Random(20261167)


def make():
    group = rng.choice([1, 2, 4, 8])
    hkv = rng.choice([1, 2, 4, 8, 16, 32]) if group > 1 else rng.choice([8, 12, 16, 24, 32, 40, 48, 64])
    sq = rng.randint(1, 16)
    skv = int(math.exp(rng.uniform(math.log(1000), math.log(16000))))
    b = rng.randint(1, 64)
    key = f"b={b},hq={hkv * group},hkv={hkv},sq={sq},skv={skv},d=128,causal={int(rng.random() < 0.3)}"
    return key, rng.choice(["fp16", "bf16"])


def ctas(problem):
    p = dict(kv.split("=") for kv in problem.split(","))
    c = dict(kv.split("=") for kv in default_config(binary, problem).split(","))
    if (c["mma"], c["block_m"], c["stages"], c["splits"]) != ("mma_sync", "16", "3", "1"):
        return 0
    b, hq, hkv, sq = (int(p[k]) for k in ("b", "hq", "hkv", "sq"))
    if c["pack_gqa"] == "on":
        return b * hkv * math.ceil(sq * hq // hkv / 16)
    return b * hq * math.ceil(sq / 16)


fit = draw(12, make, lambda problem: 66 <= ctas(problem) <= 264, used)
over = draw(4, make, lambda problem: 265 <= ctas(problem) <= 528, used)
print('FIT="' + " ".join(fit) + '"')
print('OVER="' + " ".join(over) + '"')
