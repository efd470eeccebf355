# The shapes of probe/call144 (seed 20261147), held out: non-causal d=128 problems (192-8192 queries, a fifth
# with twice the keys; two packed chunks of 16-127 queries) whose default the rule after 6dfc567 moves to the
# persistent walk, against /tmp/base3 (6dfc567's evotune); then the issue's b4 hq16 s4096 d128 fp16 row.
# used.txt held every problem string found in evidence/, scripts/ and tests/ at 6dfc567 plus probe/call143's;
# none of the drawn shapes is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
root="../../../../../.."
def default(problem, binary="build/cli/evotune"):
    r=subprocess.run([binary,"compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd=root)
    return r.stdout.split("\n")[0]
rng=random.Random(20261147); held=[]
while len(held)<10:
    chunk = len(held) >= 8
    hq=rng.choice([8,12,16,24,32,40,48,64]); g=rng.choice([g for g in ([2,4,8] if chunk else [1,1,2,4,8]) if hq%g==0])
    if chunk:
        sq=rng.randint(16,127); skv=int(math.exp(rng.uniform(math.log(1024),math.log(16384))))
    else:
        sq=int(math.exp(rng.uniform(math.log(192),math.log(8192)))); skv=sq if rng.random()<0.8 else 2*sq
    b=rng.randint(1,min(64,max(1,int(2e-3*5e14/(4*hq*sq*skv*128)))))
    k=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=128,causal=0"
    if k in used: continue
    p=k+",dtype="+rng.choice(['fp16','bf16'])
    if default(p)!=default(p,"/tmp/base3/cli/evotune"): used.add(k); held.append(p)
held.append("b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16")
print('HELD="'+" ".join(held)+'"')
