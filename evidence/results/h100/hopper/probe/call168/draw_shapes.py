# The shapes of probe/call168 (seed 20261168), drawn with scripts/probe_draw.py: call167's lead held out.
# d=128 decode-like problems (1-16 queries, GQA groups 1/2/4/8, 1000-16000 keys, causal or not) whose
# default is the mma.sync grid of 16-row tiles with three stages, unsplit, sixteen of 66-800 CTAs (two CTAs an
# SM: 264 slots). The rule read off call166-167: stages=2 where the last wave (CTAs mod 264, or 264) holds
# more than 132 CTAs, three stages otherwise. Prediction, written before the call: the side the rule picks
# is faster, or within 1%, on at least thirteen of the sixteen.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, default_config, draw

binary = sys.argv[1]
used = used_problems(exclude_dir="call168")
rng = random.Random(20261168)


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


shapes = []
for lo, hi in [(66, 132), (133, 264), (265, 396), (397, 528), (529, 660), (661, 800)] * 3:
    if len(shapes) < 16:
        shapes += draw(1, make, lambda problem: lo <= ctas(problem) <= hi, used)
for s in shapes:
    n = ctas(s)
    last = n - 264 * ((n - 1) // 264)
    print(f"# {s}: {n} CTAs, last wave {last}: the rule picks {'stages=2' if last > 132 else 'stages=3'}")
print('RULE="' + " ".join(shapes) + '"')
