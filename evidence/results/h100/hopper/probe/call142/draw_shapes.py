# The shapes of probe/call142. used.txt held every problem string found in evidence/, scripts/ and tests/
# at 241959c plus probe/call141's; none of these is among them.
# (1) seed 20261142, held out: short query chunks of 17-64 queries (two thirds under 48) whose default the
#     rule change after 241959c moves (short_chunk_unpacked from 17 queries; d=128's 64-row chunk tiles two
#     CTAs per SM; those of 48-64 queries all d=128), against /tmp/base-build (241959c's evotune).
# (2) seed 20261143: non-causal prefill at d=256 up to 4096 keys and at d=128, grids of at least two tiles per
#     SM, whose default walks tiles on the dynamic scheduler; and two causal d=256 ones.
# (3) seed 20261144: MHA chunks of 65-127 queries at d=64 (128x128 tiles, two stages).
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem, binary="build/cli/evotune"):
    r=subprocess.run([binary,"compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
def key(b,hq,hkv,sq,skv,d,c): return f"b={b},hq={hq},hkv={hkv},sq={sq},skv={skv},d={d},causal={c}"
rng=random.Random(20261142); held=[]
while len(held)<14:
    d=[64,128,256,128][len(held)%4] if len(held)<10 else 128
    sq=rng.randint(17,47) if len(held)<10 else rng.randint(48,64)
    hq=rng.choice([8,12,16,24,28,32,40,48,64]); g=rng.choice([g for g in [1,1,2,3,6,7] if hq%g==0])
    skv=int(math.exp(rng.uniform(math.log(256),math.log(16384)))); c=rng.randint(0,1)
    b=rng.randint(1,min(64,max(1,int(2e-3*5e14/(4*hq*sq*skv*d)))))
    k=key(b,hq,hq//g,sq,skv,d,c)
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if default(p)!=default(p,"/tmp/base-build/cli/evotune"): used.add(k); held.append(p)
rng=random.Random(20261143); sched=[]
while len(sched)<10:
    d=256 if len(sched)<4 or len(sched)>=8 else 128
    c=1 if len(sched)>=8 else 0
    hq=rng.choice([8,12,16,24,32,40,48]); g=rng.choice([g for g in [1,2,4,8] if hq%g==0])
    s=int(math.exp(rng.uniform(math.log(256),math.log(4096))))
    skv=s if rng.random()<0.7 else s*2
    b=rng.randint(1,64)
    if 4*b*hq*s*skv*d>4e13 or b*hq*(-(-s//128))<264: continue
    k=key(b,hq,hq//g,s,skv,d,c)
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if ",scheduler=dynamic," in default(p): used.add(k); sched.append(p)
rng=random.Random(20261144); mha=[]
while len(mha)<4:
    hq=rng.choice([8,12,16,24,28,32,40,48]); sq=rng.randint(65,127)
    skv=int(math.exp(rng.uniform(math.log(256),math.log(8192)))); c=rng.randint(0,1)
    b=rng.randint(1,min(64,max(1,int(2e-3*5e14/(4*hq*sq*skv*64)))))
    if b*hq<132: continue
    k=key(b,hq,hq,sq,skv,64,c)
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if default(p).startswith("mma=wgmma,block_m=128,block_n=128,"): used.add(k); mha.append(p)
print('HELD="'+" ".join(held)+'"'); print('SCHED="'+" ".join(sched)+'"'); print('MHA="'+" ".join(mha)+'"')
