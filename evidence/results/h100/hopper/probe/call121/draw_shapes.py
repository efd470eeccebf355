# Held-out shapes for the causal d=64 four-CTA bound at 3072 keys (probe/call121): causal d=64 with 2049-3072
# keys, drawn at random (seed 20261130), a fifth with fewer queries than keys; none among the problem strings
# in evidence/, scripts/ and tests/ at 538e6a8 (used.txt).
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261130)
out=[]
while len(out)<12:
    hq=rng.choice([4,8,12,16,24,32,40,48,64]); g=rng.choice([x for x in [1,2,4,8] if hq%x==0])
    skv=rng.randint(2049,3072)
    sq=skv if rng.random()<0.8 else skv//rng.choice([2,3,4])
    b=rng.choice([1,1,2,2,3,4,6,8])
    key=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=64,causal=1"
    if key in used: continue
    used.add(key); out.append(key+f",dtype={rng.choice(['fp16','bf16'])}")
print(" ".join(out))
