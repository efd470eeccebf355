# The shapes of probe/call139 (seed 20261138): decode steps (1-16 queries) whose unsplit mma.sync grid holds
# at least half as many CTAs as SMs and which 6f8e23e's default split (the build before the decode split
# rule: /tmp/evotune_6f8e), six over 512-2048 keys and six over 2048-32768, every head dim and group.
# used.txt held every problem string found in evidence/, scripts/ and tests/ at this call's commit; none of
# these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(binary,problem):
    r=subprocess.run([binary,"compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261138); short=[]; long_=[]
while len(short)<6 or len(long_)<6:
    d=rng.choice([64,128,128,256]); hq=rng.choice([8,16,24,32,40,48,64]); g=rng.choice([g for g in [1,2,4,8] if hq%g==0])
    sq=rng.choice([1,1,2,4,8,16]); lo=rng.random()<0.5
    skv=int(math.exp(rng.uniform(math.log(512),math.log(2048)) if lo else rng.uniform(math.log(2049),math.log(32768))))
    b=rng.randint(1,64); c=rng.randint(0,1)
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d={d},causal={c}"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    old,new=default("/tmp/evotune_6f8e",p),default("build/cli/evotune",p)
    if old==new or "splits=1," not in new: continue
    bucket=short if lo else long_
    if len(bucket)>=6: continue
    used.add(k); bucket.append(p)
print('HELD="'+" ".join(short+long_)+'"')
