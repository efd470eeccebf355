# The shapes of probe/call158 (seed 20261158): an eighth survey of the default, call137's draw (44 prefill
# shapes of 192-8192 queries, half of them multiples of 64, a fifth with more keys than queries; 16
# decode-like or short chunks of 1-127 queries over 512-32768 keys), head dims 64/128/256 weighted
# 0.4/0.45/0.15, GQA groups 1/2/4/7/8, ~1.5 ms of work at most. used.txt held every problem string found in
# evidence/, scripts/ and tests/ at 862b7f6 (after the padding, chunk-tail and grid-store rules); none of
# these is among them.
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261158); out=[]
def add(key, dtype):
    if key in used: return False
    used.add(key); out.append(key+f",dtype={dtype}"); return True
while len(out)<60:
    decode = len(out) >= 44
    d=rng.choices([64,128,256],[0.4,0.45,0.15])[0]
    causal=rng.random()<0.5
    dtype=rng.choice(['fp16','bf16'])
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    g=rng.choice([g for g in [1,2,4,7,8] if hq%g==0])
    if decode:
        sq=rng.choice([1,2,4,8,16,24,32,48,64,80,100,127])
        skv=int(math.exp(rng.uniform(math.log(512),math.log(32768))))
        b=rng.randint(1,64)
    else:
        sq=int(math.exp(rng.uniform(math.log(192),math.log(8192))))
        if rng.random()<0.5: sq=(sq//64)*64
        skv=sq if rng.random()<0.8 else int(sq*rng.choice([2,3,4,1.5]))
        flops=4*hq*sq*skv*d*(0.5 if causal else 1)
        b=rng.randint(1,min(max(1,int(1.5e-3*5e14/flops)),64))
    add(f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={int(causal)}", dtype)
print('SURVEY="'+" ".join(out)+'"')
