# The shapes of probe/call146 (seed 20261149): non-causal problems whose default (at 2cd0a6f's rules) still
# draws tiles from the dynamic counter: d=64 prefill on the four-CTA config (more 64-row tiles than its
# slots), unpacked chunks of 65-127 queries (128-row tiles) and of 17-64 queries at d=128/d=256 (64-row
# tiles); four of each. used.txt held every problem string found in evidence/, scripts/ and tests/ at
# 2cd0a6f plus probe/call145's; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem):
    r=subprocess.run(["build/cli/evotune","compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261149); groups=[[],[],[]]
while min(map(len,groups))<4:
    kind=rng.randrange(3)
    if len(groups[kind])>=4: continue
    hq=rng.choice([8,12,16,24,28,32,40,48]); g=rng.choice([g for g in [1,1,3,6,2] if hq%g==0])
    if kind==0:
        d=64; sq=int(math.exp(rng.uniform(math.log(256),math.log(2048)))); skv=sq
    elif kind==1:
        d=rng.choice([64,128,256]); sq=rng.randint(65,127); skv=int(math.exp(rng.uniform(math.log(256),math.log(8192))))
    else:
        d=rng.choice([128,256]); sq=rng.randint(17,64); skv=int(math.exp(rng.uniform(math.log(256),math.log(8192))))
    b=rng.randint(1,min(64,max(1,int(1.5e-3*5e14/(4*hq*sq*skv*d)))))
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal=0"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    c=default(p)
    if not c.startswith("mma=wgmma") or ",scheduler=dynamic," not in c: continue
    if kind==0 and ",min_ctas=4," not in c: continue
    if kind==1 and not c.startswith("mma=wgmma,block_m=128,"): continue
    if kind==2 and not c.startswith("mma=wgmma,block_m=64,"): continue
    used.add(k); groups[kind].append(p)
shapes=[p for grp in groups for p in grp]
shapes+=["b=26,hq=28,hkv=28,sq=80,skv=512,d=64,causal=0,dtype=bf16","b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16"]
print('SHAPES="'+" ".join(shapes)+'"')
