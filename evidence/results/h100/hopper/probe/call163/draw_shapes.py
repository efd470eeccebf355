# The shapes of probe/call163 (seed 20261163): the chunk-tail rule's key bound of 600 (fit on call157 and
# call160-162) held out: d=64 MHA chunks of 17-64 queries with 529-659 tiles (b x hq), causal or not, five
# over 350-599 keys (the rule: the four-CTA grid) and five over 600-900 (the 128-row chunk config). The
# prediction: the four-CTA grid faster on most of the first five; the second five near level (600-1024 keys
# were 8 of 14 for the 128-row config). used.txt held every problem string in evidence/, scripts/ and tests/
# but this folder's.
import math, random, sys
used = set(open(sys.argv[1]).read().split())
rng = random.Random(20261163)
out = []
while len(out) < 10:
    lo, hi = (350, 599) if len(out) < 5 else (600, 900)
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
