# The shapes of probe/call126 beside call125's two (seed 20261127, 20261128 for the non-causal ones): causal d=64 over 1100-2048 keys with many
# tiles (three with at least eight 64-row four-CTA rounds of the 132 SMs, three with forty), and non-causal d=64 over 768-1024 keys whose
# default is the persistent 192-row walk. used.txt held every problem string found in evidence/, scripts/ and
# tests/ at 19552e6; none of these is among them.
import random, math, sys
used=set(open('used.txt').read().split())
rng=random.Random(20261127)
def draw(causal, lo, hi, n, rounds=8):
    out=[]
    while len(out)<n:
        hq=rng.choice([8,12,16,24,28,32,40,48,64])
        hkv=hq//rng.choice([g for g in [1,2,4,8] if hq%g==0])
        s=rng.randint(lo,hi)
        if rng.random()<0.4: s=(s//64)*64
        b=rng.randint(1,64)
        tiles64=b*hq*math.ceil(s/64)
        if causal and tiles64 < rounds*528: continue
        if not causal and b*hq*math.ceil(s/192) < 2*132: continue
        if 4*b*hq*s*s*64*(0.5 if causal else 1) > 5e12: continue
        key=f"b={b},hq={hq},hkv={hkv},sq={s},skv={s},d=64,causal={int(causal)}"
        if key in used: continue
        used.add(key); out.append(key+",dtype="+rng.choice(['fp16','bf16']))
    return out
which=sys.argv[1]
if which=='noncausal': rng.seed(20261128)
print(" ".join(draw(True,1100,2048,3)+draw(True,1100,2048,3,40) if which=='causal' else draw(False,768,1024,3)))
