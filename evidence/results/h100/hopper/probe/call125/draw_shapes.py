# The shapes of probe/call125, a third survey: call115's draw with a new seed (20261126) for 44 prefill shapes
# and 8 decode-like ones, then 8 "round" shapes of the kind a user types (powers of two, LLaMA-like heads),
# kept only where not used before. used.txt held every problem string found in evidence/, scripts/ and tests/
# at 95c17af; none of these is among them.
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261126)
out=[]
def add(key, dtype):
    if key in used: return False
    used.add(key); out.append(key+f",dtype={dtype}"); return True
while len(out)<52:
    decode = len(out) >= 44
    d=rng.choices([64,128,256],[0.4,0.45,0.15])[0]
    causal=rng.random()<0.5
    dtype=rng.choice(['fp16','bf16'])
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    g=rng.choice([g for g in [1,2,4,7,8] if hq%g==0])
    hkv=hq//g
    if decode:
        sq=rng.choice([1,1,2,4,8,16,32,64])
        skv=int(math.exp(rng.uniform(math.log(512),math.log(32768))))
        b=rng.randint(1,64)
    else:
        sq=int(math.exp(rng.uniform(math.log(192),math.log(8192))))
        if rng.random()<0.5: sq=(sq//64)*64
        skv=sq if rng.random()<0.8 else int(sq*rng.choice([2,3,4,1.5]))
        flops=4*hq*sq*skv*d*(0.5 if causal else 1)
        bmax=max(1,int(1.5e-3*5e14/flops))
        b=rng.randint(1,min(bmax,64))
    add(f"b={b},hq={hq},hkv={hkv},sq={sq},skv={skv},d={d},causal={int(causal)}", dtype)
while len(out)<60:
    d=rng.choice([64,128])
    hq,hkv=rng.choice([(32,8),(32,32),(16,16),(64,8),(32,4),(8,8)])
    s=rng.choice([256,512,1024,2048,4096,8192])
    b=rng.choice([1,2,4,8,16])
    if 4*hq*s*s*d*b>6e12: continue
    add(f"b={b},hq={hq},hkv={hkv},sq={s},skv={s},d={d},causal={rng.randint(0,1)}", rng.choice(['fp16','bf16']))
print(" ".join(out))
