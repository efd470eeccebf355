# Held-out shapes for the non-causal d=128 block width rule (probe/call114): non-causal d=128, drawn at random
# (seed 20261128), none used before; printed with the width the rule picks.
# used.txt: as for probe/call112 (draw_shapes.py there); none of these is among call112 and call113 shapes either.
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261128)
def width(skv):
    return min((-(-skv//bn))*(bn+16) for bn in (160,144,128)), [bn for bn in (160,144,128)]
def pick(skv):
    best=None
    for bn in (160,144,128):
        c=(-(-skv//bn))*(bn+16)
        if best is None or c<best[0]: best=(c,bn)
    return best[1]
out={160:[],144:[],128:[]}
while min(len(v) for v in out.values())<4:
    hq=rng.choice([8,12,16,24,32,40,48,64]); g=rng.choice([x for x in [1,2,4,8] if hq%x==0])
    sq=int(math.exp(rng.uniform(math.log(192),math.log(8192))))
    skv=sq if rng.random()<0.8 else int(sq*rng.choice([1.5,2,3]))
    flops=4*hq*sq*skv*128
    b=rng.randint(1,max(1,min(64,int(1.2e-3*6e14/flops))))
    key=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=128,causal=0"
    if key in used: continue
    bn=pick(skv)
    if len(out[bn])<4: out[bn].append(key+f",dtype={rng.choice(['fp16','bf16'])}")
for bn,v in out.items():
    for k in v: print(bn,k)
