# The shapes of probe/call160 (seed 20261160): d=64 MHA chunks of 17-32 queries with 529-659 tiles (b x hq),
# the chunk-tail rule's range, causal or not, 400-16000 keys. Its measurements had the 128-row chunk config
# slower on all three chunks of 19-23 queries (call156: b17 hq32 sq22, b34 hq16 sq19; call157: b20 hq32
# sq23) and faster on the two of 25-26; the prediction written before this call: the four-CTA grid faster
# up to 23 queries, the 128-row config from 24. used.txt held every problem string in evidence/, scripts/
# and tests/ at the commit before this call.
import math, random, sys
used = set(open(sys.argv[1]).read().split())
rng = random.Random(20261160)
out = []
while len(out) < 12:
    sq = 17 + len(out) * 15 // 11  # 17..32, spread evenly
    causal = rng.random() < 0.5
    skv = int(math.exp(rng.uniform(math.log(400), math.log(16000))))
    while True:
        hq = rng.choice([8, 12, 16, 24, 28, 32, 40, 48, 64])
        tiles = rng.randint(529, 659)
        if tiles % hq == 0 and tiles // hq <= 64: break
    key = f"b={tiles // hq},hq={hq},hkv={hq},sq={sq},skv={skv},d=64,causal={int(causal)}"
    if key in used: continue
    used.add(key); out.append(key + "," + "dtype=" + rng.choice(["fp16", "bf16"]))
print('CHUNKS="' + " ".join(out) + '"')
