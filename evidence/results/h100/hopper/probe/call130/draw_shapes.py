# The shapes of probe/call130 (seed 20261202): causal d=64 GQA prefill shapes (2048-8192 keys, sq = skv or
# sq < skv) whose problem-aware default (build/cli/evotune compile --config default, at 7cfa4eb) has 192-row
# tiles, as the two of probe/call129 where packing led. used.txt held every problem string found in
# evidence/, scripts/ and tests/ at 6f491df and those of call125-129; none of these is among them.
import random, math, subprocess
used=set(open('used.txt').read().split())
rng=random.Random(20261202)
out=[]
def rows192(problem):
    r=subprocess.run(["build/cli/evotune","compile","--problem",problem,"--target","sm_90a","--config","default"],
                     capture_output=True,text=True,cwd="../../../../../..")
    return r.stdout.startswith("mma=wgmma,block_m=192,")
while len(out)<6:
    hq=rng.choice([8,12,16,24,28,32,40,48,64])
    g=rng.choice([g for g in [2,4,8] if hq%g==0])
    skv=int(math.exp(rng.uniform(math.log(2048),math.log(8192))))
    if rng.random()<0.5: skv=(skv//64)*64
    sq=skv if rng.random()<0.8 else skv//rng.choice([2,3,4])
    bmax=max(1,int(1.5e-3*5e14/(2*hq*sq*skv*64)))
    b=rng.randint(1,min(bmax,64))
    key=f"b={b},hq={hq},hkv={hq//g},sq={sq},skv={skv},d=64,causal=1"
    if key in used: continue
    used.add(key)
    p=key+",dtype="+rng.choice(['fp16','bf16'])
    if rows192(p): out.append(p)
print(" ".join(out))
