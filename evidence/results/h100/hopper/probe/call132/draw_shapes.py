# The shapes of probe/call132 (used.txt held every problem string found in evidence/, scripts/ and tests/ at
# a9b6be7; none of these is among them).
# (1) seed 20261127: causal d=64 GQA prefill shapes of 1536-3072 keys whose problem-aware default
# (build/cli/evotune compile --config default, at a9b6be7) is the four-CTA config and whose long-range
# config would have 192-row tiles (at least four per SM unpacked): is the 192-row config packed
# (with_packed_gqa, v24) now ahead of it near the bound? Each with the packed config's skip_idle as
# with_skip_idle would set it (the packed rows' last tile leaves a warpgroup idle).
# (2) seed 20261128: a fourth survey, call125's draw (44 prefill, 8 decode-like, 8 "round").
import random, math, subprocess, sys
used=set(open('used.txt').read().split())
def default(problem):
    r=subprocess.run(["build/cli/evotune","compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd="../../../../../..")
    return r.stdout.split("\n")[0]
def ceil(a,b): return -(-a//b)
part1={True:[],False:[]}
rng=random.Random(20261127)
while len(part1[True])+len(part1[False])<14:
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    g=rng.choice([g for g in [2,4,8] if hq%g==0])
    skv=int(math.exp(rng.uniform(math.log(1536),math.log(3072))))
    if rng.random()<0.5: skv=(skv//64)*64
    sq=skv if rng.random()<0.8 else skv//rng.choice([2,3])
    bmax=max(1,int(3e-3*5e14/(2*hq*sq*skv*64)))
    b=rng.randint(1,min(bmax,64))
    key=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=64,causal=1"
    if key in used: continue
    if b*hq*ceil(sq,192) < 4*132: continue
    p=key+",dtype="+rng.choice(['fp16','bf16'])
    if not default(p).startswith("mma=wgmma,block_m=64,"): continue
    used.add(key)
    last=(sq*g)%192
    idle=last!=0 and last<=128
    if len(part1[idle])>=7: continue
    part1[idle].append(p)
rng=random.Random(20261128)
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
print("IDLE=\""+" ".join(part1[True])+"\"")
print("BUSY=\""+" ".join(part1[False])+"\"")
print("SURVEY=\""+" ".join(out)+"\"")
