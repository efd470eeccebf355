# The shapes of probe/call162 (seed 20261162): the chunk-tail rule with its key bound (more than 1024 keys)
# held out near the bound: d=64 MHA chunks of 17-64 queries with 529-659 tiles (b x hq), causal or not, six
# over 600-1024 keys (the rule: the four-CTA grid) and six over 1025-3000 (the 128-row chunk config). The
# prediction: the rule's side faster on most of each six. used.txt held every problem string in evidence/,
# scripts/ and tests/ but this folder's.
import math, random, sys
used = set(open(sys.argv[1]).read().split())
rng = random.Random(20261162)
out = []
while len(out) < 12:
    lo, hi = (600, 1024) if len(out) < 6 else (1025, 3000)
    sq = rng.randint(17, 64); causal = rng.random() < 0.5
    skv = int(math.exp(rng.uniform(math.log(lo), math.log(hi))))
    while True:
        hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
        tiles = rng.randint(529, 659)
        if tiles % hq == 0 and tiles // hq <= 64: break
    key = f"b={tiles // hq},hq={hq},hkv={hq},sq={sq},skv={skv},d=64,causal={int(causal)}"
    if key in used: continue
    used.add(key); out.append(key + ",dtype=" + rng.choice(["fp16", "bf16"]))
print('CHUNKS="' + " ".join(out) + '"')
