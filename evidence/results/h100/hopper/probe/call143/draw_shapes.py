# The shapes of probe/call143. used.txt held every problem string found in evidence/, scripts/ and tests/
# at 40f9415 plus probe/call142's; none of these is among them.
# (1) seed 20261145, held out: non-causal d=256 prefill (192-4096 queries, a fifth with twice the keys)
#     whose default the rule change after 40f9415 moves to the persistent scheduler, and unpacked chunks of
#     65-127 queries at d=64 (MHA or a group of 3, 6 or 7) that it moves to three stages; against /tmp/base2
#     (40f9415's evotune).
# (2) seed 20261146: non-causal d=128 prefill on the dynamic scheduler (default against persistent).
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem, binary="build/cli/evotune"):
    r=subprocess.run([binary,"compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
def key(b,hq,hkv,sq,skv,d,c): return f"b={b},hq={hq},hkv={hkv},sq={sq},skv={skv},d={d},causal={c}"
rng=random.Random(20261145); held=[]
while len(held)<14:
    chunk = len(held) >= 8
    hq=rng.choice([8,12,16,24,28,32,40,48]); g=rng.choice([g for g in ([1,1,3,6,7] if chunk else [1,2,4,8]) if hq%g==0])
    if chunk:
        d=64; sq=rng.randint(65,127); skv=int(math.exp(rng.uniform(math.log(256),math.log(8192)))); c=rng.randint(0,1)
    else:
        d=256; c=0; sq=int(math.exp(rng.uniform(math.log(192),math.log(4096)))); skv=sq if rng.random()<0.8 else 2*sq
    b=rng.randint(1,min(64,max(1,int(2e-3*5e14/(4*hq*sq*skv*d)))))
    k=key(b,hq,hq//g,sq,skv,d,c)
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if default(p)!=default(p,"/tmp/base2/cli/evotune"): used.add(k); held.append(p)
rng=random.Random(20261146); sched=[]
while len(sched)<4:
    hq=rng.choice([8,12,16,24,32,40,48]); g=rng.choice([g for g in [1,2,4,8] if hq%g==0])
    s=int(math.exp(rng.uniform(math.log(256),math.log(8192)))); skv=s if rng.random()<0.8 else 2*s
    b=rng.randint(1,min(64,max(1,int(2e-3*5e14/(4*hq*s*skv*128)))))
    k=key(b,hq,hq//g,s,skv,128,0)
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if ",scheduler=dynamic," in default(p): used.add(k); sched.append(p)
print('HELD="'+" ".join(held)+'"'); print('SCHED="'+" ".join(sched)+'"')
