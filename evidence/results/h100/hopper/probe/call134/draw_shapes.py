# The shapes of probe/call134 (seed 20261132): short query chunks (48-127 queries) that the short-chunk rule
# of fed4e4b leaves to the mma.sync path (one query head per KV head, or a group that does not divide 64),
# four per head dim, causal or not, 512-16384 keys. used.txt held every problem string found in evidence/,
# scripts/ and tests/ at fed4e4b; none of these is among them.
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261132)
out={64:[],128:[],256:[]}
while min(len(v) for v in out.values())<4:
    d=rng.choice([64,128,256])
    if len(out[d])>=4: continue
    hq=rng.choice([8,12,16,24,28,32,48]); g=rng.choice([g for g in [1,1,3,6,7] if hq%g==0])
    sq=rng.choice([48,64,80,96,112,127]); skv=int(math.exp(rng.uniform(math.log(512),math.log(16384))))
    c=rng.randint(0,1)
    bmax=max(1,int(2e-3*5e14/(4*hq*sq*skv*d)))
    b=rng.randint(1,min(64,bmax))
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={c}"
    if k in used: continue
    used.add(k); out[d].append(k+",dtype="+rng.choice(['fp16','bf16']))
for d in (64,128,256): print(f'D{d}="'+" ".join(out[d])+'"')
