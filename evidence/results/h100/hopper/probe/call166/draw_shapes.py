# The shapes of probe/call166 (seed 20261166): the two K/V-bandwidth-bound decode-like shapes below cuDNN in
# call158 and call165 (MHA, 4 and 16 queries, d=128, the mma.sync grid unsplit, both sides at 2.9-3.06 TB/s)
# and six random shapes of their class drawn with scripts/probe_draw.py: MHA, 1-16 queries, d=64/128, over
# 2000-12000 keys, a grid of at least half the SMs (so unsplit), about 0.1-1.5 GB of K/V. The question: does
# another ring depth, K/V block width, key-warp split or split count read K/V faster on most of them? No
# prediction; a rule only if one variant wins on most by more than the rounds' spread, held out after.
import math, random, sys
sys.path.insert(0, "scripts")
from probe_draw import used_problems, draw

used = used_problems(exclude_dir="call166")
rng = random.Random(20261166)


def make():
    d = rng.choice([64, 128])
    hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
    skv = int(math.exp(rng.uniform(math.log(2000), math.log(12000))))
    kv_bytes_per_head = skv * d * 2 * 2
    b = max(1, min(64, int(rng.uniform(1e8, 1.5e9) / (kv_bytes_per_head * hq))))
    key = f"b={b},hq={hq},hkv={hq},sq={rng.randint(1, 16)},skv={skv},d={d},causal={int(rng.random() < 0.3)}"
    return key, rng.choice(["fp16", "bf16"])


unsplit = lambda problem: 2 * int(problem.split(",")[0][2:]) * int(problem.split(",")[1][3:]) >= 132
shapes = ["b=26,hq=16,hkv=16,sq=16,skv=5068,d=128,causal=0,dtype=fp16",
          "b=19,hq=28,hkv=28,sq=4,skv=8373,d=128,causal=0,dtype=fp16"] + draw(6, make, unsplit, used)
print('BOUND="' + " ".join(shapes) + '"')
