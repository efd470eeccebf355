# Held-out shapes for the causal d=64 four-CTA bound as narrowed (probe/call123): causal d=64, sq = skv in
# 2049-3072, at least four 192-row tiles per SM, drawn at random (seed 20261132): four whose heads' last
# 192-row tile leaves a warpgroup without rows (the four-CTA config) and four whose last tile keeps all three
# busy (192-row tiles); none among the problem strings in evidence/, scripts/ and tests/ at HEAD (used.txt).
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261132)
idle, busy = [], []
while len(idle)<4 or len(busy)<4:
    hq=rng.choice([8,12,16,24,32,40,48,64]); g=rng.choice([x for x in [1,2,4,8] if hq%x==0])
    s=rng.randint(2049,3072); b=rng.choice([1,2,3,4,6,8,12,16])
    if math.ceil(s/192)*b*hq < 4*132 or b*hq*s*s*64*2 > 4e11: continue
    key=f"b={b},hq={hq},hkv={hq//g},sq={s},skv={s},d=64,causal=1"
    if key in used: continue
    used.add(key)
    last=s%192
    side = idle if 0 < last <= 128 else busy
    if len(side)<4: side.append(key+f",dtype={rng.choice(['fp16','bf16'])}")
print(" ".join(idle+busy))
