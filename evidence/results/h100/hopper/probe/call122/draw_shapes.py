# Held-out shapes for the narrowed causal d=64 four-CTA bound (probe/call122): causal d=64 with 2049-3072
# keys, drawn at random (seed 20261131), five where 192-row tiles are at least four per SM (the four-CTA
# config) and five where they are fewer (128-row tiles); none among the problem strings in evidence/,
# scripts/ and tests/ at 3a9e750 (used.txt).
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261131)
many, few = [], []
while len(many)<5 or len(few)<5:
    hq=rng.choice([4,8,12,16,24,32,40,48,64]); g=rng.choice([x for x in [1,2,4,8] if hq%x==0])
    skv=rng.randint(2049,3072)
    sq=skv if rng.random()<0.8 else skv//rng.choice([2,3,4])
    b=rng.choice([1,1,2,2,3,4,6,8,12,16])
    key=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=64,causal=1"
    if key in used: continue
    used.add(key)
    side = many if math.ceil(sq/192)*b*hq >= 4*132 else few
    if len(side)<5: side.append(key+f",dtype={rng.choice(['fp16','bf16'])}")
print(" ".join(many+few))
