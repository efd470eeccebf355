# The shapes of probe/call115: call112's draw (seed 20261129 here) for 40 prefill shapes, and 12 decode-like
# ones (1-64 queries over 512-32768 keys, GQA, causal or not). used.txt held every problem string found in
# evidence/, scripts/ and tests/ at 983a0bb; none of these is among them.
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261129)
out=[]
while len(out)<52:
    decode = len(out) >= 40
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
    key=f"b={b},hq={hq},hkv={hkv},sq={sq},skv={skv},d={d},causal={int(causal)}"
    if key in used: continue
    used.add(key)
    out.append(key+f",dtype={dtype}")
print(" ".join(out))
