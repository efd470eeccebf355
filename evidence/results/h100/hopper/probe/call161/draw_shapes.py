# The shapes of probe/call161 (seed 20261161): d=64 MHA chunks of 17-64 queries with 529-659 tiles (b x hq),
# the chunk-tail rule's range, over 300-1200 keys, causal or not. call160 refuted a bound on queries (the
# 128-row config faster on five of five at 17-22 queries); across call154-160 every such chunk over at most
# 550 keys was slower on it (b20 hq32 sq23 skv412, b39 hq16 sq23 skv550, b10 hq64 sq27 skv452, all causal,
# 2.0-3.9%) and every one over 826-842 faster. The prediction written before this call: the four-CTA grid
# faster below 700 keys, the 128-row config from 700. used.txt held every problem string in evidence/,
# scripts/ and tests/ but this folder's.
import math, random, sys
used = set(open(sys.argv[1]).read().split())
rng = random.Random(20261161)
out = []
while len(out) < 10:
    sq = rng.randint(17, 64); causal = rng.random() < 0.5
    skv = int(math.exp(rng.uniform(math.log(300), math.log(1200))))
    while True:
        hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
        tiles = rng.randint(529, 659)
        if tiles % hq == 0 and tiles // hq <= 64: break
    key = f"b={tiles // hq},hq={hq},hkv={hq},sq={sq},skv={skv},d=64,causal={int(causal)}"
    if key in used: continue
    used.add(key); out.append(key + ",dtype=" + rng.choice(["fp16", "bf16"]))
print('CHUNKS="' + " ".join(out) + '"')
