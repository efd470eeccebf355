# The shapes of probe/call129 (seed 20261201): causal GQA prefill shapes, five at d=64 (256-4096 keys) and
# five at d=128 (256-2047 keys: from 2048 the causal d=128 default packs already), at least two 64-row tiles
# per SM, drawn as call115's prefill shapes are. used.txt held every problem string found in evidence/,
# scripts/ and tests/ at 6f491df and those of call125-128; none of these is among them.
import random, math
used=set(open('used.txt').read().split())
rng=random.Random(20261201)
out={64:[],128:[]}
while len(out[64])<5 or len(out[128])<5:
    d=rng.choice([64,128])
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    g=rng.choice([g for g in [2,4,8] if hq%g==0])
    sq=int(math.exp(rng.uniform(math.log(256),math.log(4096 if d==64 else 2047))))
    if rng.random()<0.5: sq=max(256,(sq//64)*64)
    bmax=max(1,int(1.5e-3*5e14/(2*hq*sq*sq*d)))
    b=rng.randint(1,min(bmax,64))
    if b*hq*math.ceil(sq/64) < 2*132: continue
    key=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={sq},d={d},causal=1"
    if key in used or len(out[d])>=5: continue
    used.add(key); out[d].append(key+",dtype="+rng.choice(['fp16','bf16']))
print(" ".join(out[64]+out[128]))
